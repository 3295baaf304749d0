"""One email with the waits a test needs."""

from datetime import datetime
from typing import TYPE_CHECKING, Callable, Dict, List, Optional

from .extract import extract_code, extract_link
from .resources import Email, Message
from .wait import Mark, MessageMatch, TextMatcher

if TYPE_CHECKING:
    from .client import TempmailClient


class Inbox:
    """
    One email with the waits a test needs. Its waits share the client's memory: none returns a
    message an earlier wait returned, so a second wait returns the second mail.
    """

    def __init__(self, client: "TempmailClient", email: Email) -> None:
        self.client = client
        self.email = email
        #: HTTP requests this inbox's waits and marks sent.
        self.requests = 0
        #: What the last wait spent (also after a failed wait): ``{"requests": n}``.
        self.last_wait: Optional[Dict[str, int]] = None
        #: The messages this inbox's waits returned, in order (the pytest plugin reports them when a test fails).
        self.returned: List[Message] = []

    @property
    def id(self) -> str:
        return self.email["id"]

    @property
    def address(self) -> str:
        return self.email["address"]

    def __repr__(self) -> str:
        return f"Inbox(id={self.id!r}, address={self.address!r})"

    def mark(self) -> Mark:
        """What the inbox holds now (one charged request): take it before the action, pass it as ``after``."""
        mark = self.client.mark(self.id)
        self.requests += 1
        return mark

    def wait_for_message(
        self,
        match: Optional[MessageMatch] = None,
        *,
        from_: Optional[TextMatcher] = None,
        to: Optional[TextMatcher] = None,
        subject: Optional[TextMatcher] = None,
        body: Optional[TextMatcher] = None,
        where: Optional[Callable[[Message], bool]] = None,
        timeout: float = 30.0,
        after: Optional[Mark] = None,
        since: Optional[datetime] = None,
        max_requests: Optional[int] = None,
        allow_over_budget: bool = False,
        initial_interval: float = 1.0,
        max_interval: float = 5.0,
    ) -> Message:
        """Waits for the oldest new message that matches (default 30 s)."""
        return self.wait_for_messages(
            1, match, from_=from_, to=to, subject=subject, body=body, where=where, timeout=timeout, after=after, since=since,
            max_requests=max_requests, allow_over_budget=allow_over_budget, initial_interval=initial_interval, max_interval=max_interval,
        )[0]  # fmt: skip

    def wait_for_messages(
        self,
        count: int,
        match: Optional[MessageMatch] = None,
        *,
        from_: Optional[TextMatcher] = None,
        to: Optional[TextMatcher] = None,
        subject: Optional[TextMatcher] = None,
        body: Optional[TextMatcher] = None,
        where: Optional[Callable[[Message], bool]] = None,
        timeout: float = 30.0,
        after: Optional[Mark] = None,
        since: Optional[datetime] = None,
        max_requests: Optional[int] = None,
        allow_over_budget: bool = False,
        initial_interval: float = 1.0,
        max_interval: float = 5.0,
        exact: bool = False,
    ) -> List[Message]:
        """Waits for ``count`` new matching messages, oldest first; ``exact``: more in the poll that completes the count is an error."""
        messages = self.client.wait_for_messages(
            self.id, count, match, from_=from_, to=to, subject=subject, body=body, where=where, timeout=timeout, after=after,
            since=since, max_requests=max_requests, allow_over_budget=allow_over_budget, initial_interval=initial_interval, max_interval=max_interval, on_spent=self._count_spent, exact=exact,
        )  # fmt: skip
        self.returned.extend(messages)
        return messages

    def expect_no_message(
        self,
        match: Optional[MessageMatch] = None,
        *,
        for_seconds: float,
        from_: Optional[TextMatcher] = None,
        to: Optional[TextMatcher] = None,
        subject: Optional[TextMatcher] = None,
        body: Optional[TextMatcher] = None,
        where: Optional[Callable[[Message], bool]] = None,
        after: Optional[Mark] = None,
        since: Optional[datetime] = None,
        max_requests: Optional[int] = None,
        allow_over_budget: bool = False,
    ) -> None:
        """Polls through ``for_seconds`` and raises ``UnexpectedMessageError`` naming the new mail that matches, if any came."""
        self.client.expect_no_message(
            self.id, match, for_seconds=for_seconds, from_=from_, to=to, subject=subject, body=body, where=where, after=after,
            since=since, max_requests=max_requests, allow_over_budget=allow_over_budget, on_spent=self._count_spent,
        )  # fmt: skip

    def _count_spent(self, requests: int) -> None:
        self.last_wait = {"requests": requests}
        self.requests += requests

    def wait_for_code(
        self,
        match: Optional[MessageMatch] = None,
        *,
        from_: Optional[TextMatcher] = None,
        to: Optional[TextMatcher] = None,
        subject: Optional[TextMatcher] = None,
        body: Optional[TextMatcher] = None,
        where: Optional[Callable[[Message], bool]] = None,
        timeout: float = 30.0,
        after: Optional[Mark] = None,
        since: Optional[datetime] = None,
        max_requests: Optional[int] = None,
        allow_over_budget: bool = False,
        initial_interval: float = 1.0,
        max_interval: float = 5.0,
    ) -> str:
        """Waits as ``wait_for_message`` does and returns the message's verification code; raises ``LookupError`` when it holds none."""
        message = self.wait_for_message(
            match, from_=from_, to=to, subject=subject, body=body, where=where, timeout=timeout, after=after, since=since,
            max_requests=max_requests, allow_over_budget=allow_over_budget, initial_interval=initial_interval, max_interval=max_interval,
        )  # fmt: skip
        return _found(extract_code(message), "code", message)

    def wait_for_link(
        self,
        match: Optional[MessageMatch] = None,
        *,
        from_: Optional[TextMatcher] = None,
        to: Optional[TextMatcher] = None,
        subject: Optional[TextMatcher] = None,
        body: Optional[TextMatcher] = None,
        where: Optional[Callable[[Message], bool]] = None,
        timeout: float = 30.0,
        after: Optional[Mark] = None,
        since: Optional[datetime] = None,
        max_requests: Optional[int] = None,
        allow_over_budget: bool = False,
        initial_interval: float = 1.0,
        max_interval: float = 5.0,
    ) -> str:
        """Waits as ``wait_for_message`` does and returns its action link (entity-decoded); raises ``LookupError`` when it holds none."""
        message = self.wait_for_message(
            match, from_=from_, to=to, subject=subject, body=body, where=where, timeout=timeout, after=after, since=since,
            max_requests=max_requests, allow_over_budget=allow_over_budget, initial_interval=initial_interval, max_interval=max_interval,
        )  # fmt: skip
        return _found(extract_link(message), "link", message)


def _found(value: Optional[str], what: str, message: Message) -> str:
    if value is None:
        raise LookupError(f"The message {message['id']} ({message['subject']!r}) holds no {what}")
    return value
