"""What a wait did, for the error that ends it: enough to see why nothing matched, never a key or a body."""

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, List, Optional, Pattern, Tuple, Union

#: The criteria of a wait, in the order a miss is explained: the first one a mail fails is named.
CRITERIA: Tuple[str, ...] = ("subject", "from", "to", "body", "where")

#: How many rejected mails an error message lists one per line (the newest ones); ``WaitReport.rejected`` holds all.
LISTED = 20


@dataclass(frozen=True)
class Rejection:
    """A mail that arrived in a wait's window and did not match: what identifies it, never its body."""

    id: str
    subject: str
    from_: str
    received_at: str
    #: The first criterion it failed: ``subject``, ``from``, ``to``, ``body`` or ``where``.
    failed: str

    def describe(self) -> str:
        return f"{_quoted(self.subject)} from {_quoted(self.from_)} at {self.received_at} (failed {self.failed})"


@dataclass
class WaitReport:
    """What a wait saw: its criteria, its deadline, its polls, and the mail that came in its window."""

    #: The wait's criteria as text (matchers, mark, since, count).
    criteria: str
    #: Seconds from the wait's start to its deadline.
    timeout: float
    #: List rounds made (one request each, or more when one pages).
    polls: int = 0
    #: Mails that arrived in the window (new to the wait: after its mark and ``since``, not returned before).
    arrived: int = 0
    #: The arrivals that did not match, oldest first, each with the criterion it failed first.
    rejected: List[Rejection] = field(default_factory=list)
    #: Arrivals that matched what a listing shows but were gone (expired) when the wait read them.
    expired: int = 0

    def summary(self, requests: int) -> str:
        return (
            f"waited for: {self.criteria}; deadline {self.timeout:g} s after its start; {self.polls} poll{_s(self.polls)}, "
            f"{requests} request{_s(requests)}; {self.arrived} arrived in the window, {len(self.rejected)} did not match, "
            f"{self.expired} expired meanwhile"
        )

    def lines(self) -> str:
        """The rejected mails, one per line, the newest ``LISTED`` of them."""
        earlier = len(self.rejected) - LISTED
        shown = self.rejected[-LISTED:]
        head = f"\n  … {earlier} earlier ones not listed" if earlier > 0 else ""
        return head + "".join(f"\n  {rejection.describe()}" for rejection in shown)


def describe_criteria(match: Any, after: Any = None, since: Optional[datetime] = None, count: int = 1) -> str:
    """The criteria of a wait in one line, e.g. ``subject "verify", from re.compile('acme'), after a mark of 2``."""
    parts: List[str] = []
    for name in CRITERIA:
        matcher = getattr(match, "from_" if name == "from" else name)
        if matcher is None:
            continue
        parts.append("where(message)" if name == "where" else f"{name} {_matcher(matcher)}")
    if after is not None:
        parts.append(f"after a mark of {len(after.ids)}")
    if since is not None:
        parts.append(f"since {since.isoformat()}")
    if count > 1:
        parts.append(f"count {count}")
    return ", ".join(parts) if parts else "any new message"


def _matcher(matcher: Union[str, Pattern[str]]) -> str:
    return _quoted(matcher) if isinstance(matcher, str) else repr(matcher)


def _quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _s(count: int) -> str:
    return "" if count == 1 else "s"
