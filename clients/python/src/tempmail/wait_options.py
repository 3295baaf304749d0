"""How a wait polls, as one value, as the TypeScript client's waits take one options object."""

from dataclasses import dataclass
from datetime import datetime
from typing import Callable, Optional

from .mark import Mark

#: A wait's deadline when its options give none, in seconds.
DEFAULT_TIMEOUT = 30.0


@dataclass(frozen=True)
class WaitOptions:
    """
    How long and how a wait polls; durations in seconds. Frozen, so one value can be shared by
    many waits (``dataclasses.replace`` makes a variant)::

        patient = WaitOptions(timeout=60, max_requests=20)
        inbox.wait_for_code(MessageMatch(subject="verify"), patient)
    """

    #: The deadline (30 s when None); it caps every sleep and every request. ``expect_no_message`` takes ``for_seconds`` instead.
    timeout: Optional[float] = None
    #: Only mail that was not in the inbox when the mark was taken, nor older than its newest.
    after: Optional[Mark] = None
    #: Only mail received at or after this server time.
    since: Optional[datetime] = None
    #: The request budget: a wait whose worst case exceeds it is refused before its first request.
    max_requests: Optional[int] = None
    #: Start even when the wait's worst case exceeds ``max_requests``: it then ends at the budget (``reason`` ``"budget"``).
    allow_over_budget: bool = False
    #: The poll schedule: the first sleep, growing 1.5 times up to the longest.
    initial_interval: float = 1.0
    max_interval: float = 5.0
    #: Each request's own time-out (the client's when None), capped by the deadline.
    request_timeout: Optional[float] = None
    #: Told the requests the wait sent, also when it fails.
    on_spent: Optional[Callable[[int], None]] = None
    #: ``wait_for_messages``: raise ``UnexpectedMessageError`` when the poll that completes the count holds more matching new mail.
    exact: bool = False
