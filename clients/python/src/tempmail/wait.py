"""The client's wait for new mail: marks, matchers, the polling schedule and its deadline."""

import re
from datetime import datetime
from typing import Dict, List, Optional, Protocol, Set

from .errors import (
    AllowanceExhaustedError,
    NotFoundError,
    RateLimitedError,
    TempmailError,
    TempmailNetworkError,
    UnexpectedMessageError,
    WaitTimeoutError,
)
from .mark import Mark
from .message_match import MessageMatch, TextMatcher
from .resources import Message, MessageListItem, MessagePage
from .retry_policy import RetryPolicy
from .wait_cost import positive_seconds, worst_case_requests
from .wait_options import DEFAULT_TIMEOUT, WaitOptions
from .wait_report import Rejection, WaitReport, describe_criteria

PAGE = 100


class WaitingClient(Protocol):
    """The part of the client a wait uses: one-attempt requests, its clock, its retry limits, its memory and its request time-out."""

    retry: RetryPolicy
    request_timeout: float

    def _list_once(self, email_id: str, cursor: Optional[str], request_timeout: float) -> MessagePage: ...

    def _read_once(self, message_id: str, request_timeout: float) -> Message: ...

    def now(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...

    def returned_ids(self, email_id: str) -> Set[str]: ...


def take_mark(client: WaitingClient, email_id: str, request_timeout: float) -> Mark:
    """Lists the inbox once (the largest page) and records what is there."""
    page = client._list_once(email_id, None, request_timeout)
    newest: Optional[str] = None
    for item in page["data"]:
        if newest is None or _instant(item["received_at"]) > _instant(newest):
            newest = item["received_at"]
    return Mark(email_id, tuple(item["id"] for item in page["data"]), newest)


def is_after(item: MessageListItem, after: Optional[Mark], since: Optional[datetime]) -> bool:
    """Whether a listed message is new for a wait: not in the mark, not older than it, not before ``since``."""
    if after is not None:
        if item["id"] in after.ids:
            return False
        if after.newest_received_at is not None and _instant(item["received_at"]) < _instant(after.newest_received_at):
            return False
    return not (since is not None and _instant(item["received_at"]) < since.timestamp())


def list_failure(match: MessageMatch, item: MessageListItem) -> Optional[str]:
    """The first test a listing can answer that the message fails (subject, from, to: any recipient), or None."""
    if not _matches(match.subject, item["subject"]):
        return "subject"
    if not _matches(match.from_, item["from"]):
        return "from"
    if match.to is not None and not any(_matches(match.to, to) for to in item["to"]):
        return "to"
    return None


def whole_failure(match: MessageMatch, message: Message) -> Optional[str]:
    """The first test that needs the whole message (body, then where) that it fails, or None."""
    if not (match.body is None or _matches(match.body, message["text"]) or _matches(match.body, message["html"])):
        return "body"
    if match.where is not None and not match.where(message):
        return "where"
    return None


def wait_for_messages(
    client: WaitingClient, email_id: str, count: int, match: MessageMatch, options: WaitOptions, *, poll_at_deadline: bool = False
) -> List[Message]:
    """
    Polls an email's messages until ``count`` new ones match, and returns them (whole), oldest
    first. The service never waits on the client's behalf (contract), so this is the client's
    loop: list (newest first, 100 a page), test the new arrivals, sleep, list again, until the
    deadline.

    New means: not returned by an earlier wait of the same client, not in the ``after`` mark nor
    older than its newest message, not before ``since``.

    What it costs: every page is a charged request (a poll stops paging at the first message of
    the mark, older than it, or seen by an earlier poll), and so is each whole-message read. The
    schedule polls at once, then after 1 s, 1.5 s, 2.25 s, 3.4 s and every 5 s: a 30-second wait
    that finds nothing costs 9 requests, 10 at worst with its read (``worst_case_requests``).
    ``max_requests`` bounds it: a wait whose worst case exceeds it is refused before its first
    request (``ValueError``) unless ``allow_over_budget``, and then ends at the budget.
    ``poll_at_deadline`` polls once more when the deadline comes, so that mail of the window's last
    seconds is seen (``expect_no_message``).

    The deadline caps every sleep and every request; 5xx answers, network failures and the short
    window's 429 are waited through. A used-up allowance and any other 4xx end the wait at once.
    Raises ``WaitTimeoutError`` (with the last error as its cause) at the deadline or the budget.
    """
    timeout = positive_seconds(DEFAULT_TIMEOUT if options.timeout is None else options.timeout, "timeout")
    request_timeout = positive_seconds(client.request_timeout if options.request_timeout is None else options.request_timeout, "request_timeout")
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ValueError(f"count must be an integer of at least 1, got {count!r}")
    max_requests = options.max_requests
    if max_requests is not None and (isinstance(max_requests, bool) or not isinstance(max_requests, int) or max_requests < 1):
        raise ValueError(f"max_requests must be an integer of at least 1, got {max_requests!r}")
    if options.after is not None and options.after.email_id != email_id:
        raise ValueError(f"The mark was taken of {options.after.email_id}, not of {email_id}")
    worst = worst_case_requests(timeout, count, options.initial_interval, options.max_interval, poll_at_deadline)
    if max_requests is not None and worst > max_requests and not options.allow_over_budget:
        raise ValueError(
            f"This wait may spend {worst} requests ({worst - count} polls in {timeout:g} s on its schedule and {count} read"
            f"{'' if count == 1 else 's'}), more than max_requests={max_requests}: raise max_requests, shorten the timeout, "
            "poll less often (initial_interval, max_interval), or pass allow_over_budget=True to let it end at the budget"
        )

    deadline = client.now() + timeout
    needs_whole = match.body is not None or match.where is not None
    returned = client.returned_ids(email_id)
    report = WaitReport(describe_criteria(match, options.after, options.since, count), timeout)
    rejected: Dict[str, Rejection] = {}
    seen: Set[str] = set()
    found: List[Message] = []
    requests = 0
    closing = False  # the poll at the deadline, when the options ask for one
    last_error: Optional[BaseException] = None
    interval = options.initial_interval

    def timed_out(reason: str) -> WaitTimeoutError:
        report.rejected = list(rejected.values())
        error = WaitTimeoutError(email_id, timeout, requests, report, reason, last_error)
        error.__cause__ = last_error
        return error

    def spend() -> float:
        """Counts the next request against the budget, and gives its time-out, capped by the deadline."""
        nonlocal requests
        left = deadline - client.now()
        if left <= 0 and not closing:
            raise timed_out("deadline")
        if max_requests is not None and requests >= max_requests:
            raise timed_out("budget")
        requests += 1
        return min(request_timeout, left) if left > 0 else request_timeout

    try:
        while True:
            retry_after = 0.0
            try:
                arrivals: List[MessageListItem] = []
                cursor: Optional[str] = None
                while True:
                    request_timeout_left = spend()
                    report.polls += cursor is None  # a poll is a round of pages; its first is sent now
                    page = client._list_once(email_id, cursor, request_timeout_left)
                    reached_old = False
                    for item in page["data"]:
                        # Newest first: the first message seen before or older than the mark ends the new ones.
                        if item["id"] in seen or (options.after is not None and not is_after(item, options.after, None)):
                            reached_old = True
                            break
                        arrivals.append(item)
                    pagination = page["pagination"]
                    cursor = pagination.get("next_cursor") if pagination["has_more"] and not reached_old else None
                    if cursor is None:
                        break
                seen.update(item["id"] for item in arrivals)

                # Oldest first among the new ones: the first mail that matches is the one the caller waits for.
                for item in reversed(arrivals):
                    if item["id"] in returned or not is_after(item, options.after, options.since):
                        continue
                    report.arrived += 1
                    failed = list_failure(match, item)
                    if failed is None:
                        try:
                            message = client._read_once(item["id"], spend())
                        except NotFoundError:
                            report.expired += 1  # expired between the listing and the read
                            continue
                        failed = whole_failure(match, message) if needs_whole else None
                    if failed is not None:
                        rejected[item["id"]] = Rejection(item["id"], item["subject"], item["from"], item["received_at"], failed)
                        continue
                    found.append(message)
                    if len(found) > count:
                        raise UnexpectedMessageError(email_id, found[count:], f"more than the {count} awaited")
                    if len(found) == count and not options.exact:
                        returned.update(each["id"] for each in found)
                        return found
                if len(found) == count:
                    returned.update(each["id"] for each in found)
                    return found
            except (TempmailError, TempmailNetworkError) as error:
                if not _is_passing(error):
                    raise
                last_error = error
                if isinstance(error, RateLimitedError) and error.retry_after is not None:
                    retry_after = min(float(error.retry_after), client.retry.max_retry_after)
            remaining = deadline - client.now()
            if remaining <= 0:
                raise timed_out("deadline")
            client.sleep(min(max(interval, retry_after), remaining))
            interval = min(options.max_interval, interval * 1.5)
            closing = poll_at_deadline and deadline - client.now() <= 0
    finally:
        if options.on_spent is not None:
            options.on_spent(requests)


def _is_passing(error: Exception) -> bool:
    """A failure a wait polls through: a 5xx, a network failure or time-out, the short window's 429."""
    if isinstance(error, AllowanceExhaustedError):
        return False
    if isinstance(error, TempmailError):
        return error.status is not None and (error.status == 429 or error.status >= 500)
    return isinstance(error, TempmailNetworkError)


def _matches(matcher: Optional[TextMatcher], value: str) -> bool:
    if matcher is None:
        return True
    if isinstance(matcher, str):
        return matcher.lower() in value.lower()
    return matcher.search(value) is not None


def _instant(value: str) -> float:
    """An RFC 3339 instant as seconds since the epoch (``Z`` accepted on Python 3.9 and 3.10)."""
    return datetime.fromisoformat(re.sub(r"[zZ]$", "+00:00", value)).timestamp()
