"""What a wait costs: its arguments in seconds, and the most requests its schedule can spend by its deadline."""

import math


def positive_seconds(value: object, name: str) -> float:
    """A time-out or deadline: a finite number of seconds above 0, else ``ValueError`` at the call."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number of seconds above 0, got {value!r}")
    return float(value)


def worst_case_requests(
    timeout: float, count: int = 1, initial_interval: float = 1.0, max_interval: float = 5.0, poll_at_deadline: bool = False
) -> int:
    """
    What a wait may spend by its deadline when the mail comes late or never: one list page per poll
    of its schedule (at once, then after ``initial_interval``, growing 1.5 times to every
    ``max_interval``, the last sleep cut at the deadline; once more at the deadline when
    ``poll_at_deadline``), and one whole-message read per awaited mail. A poll that pages (more than
    100 new mails at once) and the reads of ``body``/``where`` candidates come on top. A 30-second
    wait on the default schedule: 9 polls and 1 read, 10 requests.
    """
    timeout = positive_seconds(timeout, "timeout")
    interval = positive_seconds(initial_interval, "initial_interval")
    longest = positive_seconds(max_interval, "max_interval")
    polls, elapsed = 1, 0.0
    while True:
        elapsed += min(interval, timeout - elapsed)
        if elapsed >= timeout:
            return polls + (1 if poll_at_deadline else 0) + count
        polls += 1
        interval = min(longest, interval * 1.5)
