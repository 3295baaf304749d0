"""How the client waits between attempts. Every duration is in seconds."""

import math
import re
from dataclasses import dataclass
from typing import Callable, Mapping, Optional


@dataclass(frozen=True)
class RetryPolicy:
    """The retry limits; the defaults are those of the TypeScript client."""

    #: Retries after a 500, a 503 or a network failure (the first attempt not counted).
    max_server_retries: int = 3
    #: Retries after a short-window 429.
    max_rate_limit_retries: int = 4
    #: The first backoff ceiling; it doubles per retry.
    base_delay: float = 0.25
    #: The largest backoff ceiling.
    max_delay: float = 20.0
    #: The longest ``Retry-After`` the client honours: the contract's short window is one minute, so a
    #: longer one (``Retry-After: 100000`` from a broken proxy) is waited as 60 s, never as days.
    max_retry_after: float = 60.0


def full_jitter(retry: int, policy: RetryPolicy, random: Callable[[], float]) -> float:
    """
    "Full jitter" exponential backoff: a uniformly random wait between 0 and
    min(max_delay, base_delay * 2**retry), so that many clients refused together do not return together.
    """
    return math.floor(random() * min(policy.max_delay, policy.base_delay * float(2**retry)) * 1000) / 1000


def delay_before_retry(
    retry: int, retry_after: Optional[int], policy: RetryPolicy, random: Callable[[], float]
) -> float:
    """
    The wait before the next attempt: the service's ``Retry-After`` (seconds, at most
    ``max_retry_after``), plus the jittered backoff on top.
    """
    return min(retry_after or 0, policy.max_retry_after) + full_jitter(retry, policy, random)


def retry_after_of(headers: Mapping[str, str]) -> Optional[int]:
    """``Retry-After`` as integer seconds (the contract sends integers, at least 1); None when absent or malformed."""
    value = headers.get("retry-after")
    return int(value.strip()) if value is not None and re.fullmatch(r"[0-9]+", value.strip()) else None
