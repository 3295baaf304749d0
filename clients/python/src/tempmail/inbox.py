"""One email with the waits a test needs."""

from dataclasses import replace
from typing import Any, Dict, List, Optional

from .extract import extract_code, extract_link
from .inbox_client import InboxClient
from .mark import Mark
from .message_match import MessageMatch
from .resources import Email, Message
from .wait_arguments import wait_arguments
from .wait_options import WaitOptions


class Inbox:
    """
    One email with the waits a test needs: the client's waits without the email id. Its waits
    share the client's memory: none returns a message an earlier wait returned, so a second wait
    returns the second mail. Each takes a ``MessageMatch`` and ``WaitOptions`` (or their keywords).
    """

    def __init__(self, client: InboxClient, email: Email) -> None:
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

    def wait_for_message(self, match: Optional[MessageMatch] = None, options: Optional[WaitOptions] = None, **keywords: Any) -> Message:
        """Waits for the oldest new message that matches (default 30 s)."""
        return self._wait("wait_for_message", 1, match, options, keywords)[0]

    def wait_for_messages(
        self, count: int, match: Optional[MessageMatch] = None, options: Optional[WaitOptions] = None, **keywords: Any
    ) -> List[Message]:
        """Waits for ``count`` new matching messages, oldest first; ``exact``: more in the poll that completes the count is an error."""
        return self._wait("wait_for_messages", count, match, options, keywords)

    def wait_for_code(self, match: Optional[MessageMatch] = None, options: Optional[WaitOptions] = None, **keywords: Any) -> str:
        """Waits as ``wait_for_message`` does and returns the message's verification code; raises ``LookupError`` when it holds none."""
        message = self._wait("wait_for_code", 1, match, options, keywords)[0]
        return _found(extract_code(message), "code", message)

    def wait_for_link(self, match: Optional[MessageMatch] = None, options: Optional[WaitOptions] = None, **keywords: Any) -> str:
        """Waits as ``wait_for_message`` does and returns its action link (entity-decoded); raises ``LookupError`` when it holds none."""
        message = self._wait("wait_for_link", 1, match, options, keywords)[0]
        return _found(extract_link(message), "link", message)

    def expect_no_message(
        self, match: Optional[MessageMatch] = None, options: Optional[WaitOptions] = None, *, for_seconds: float, **keywords: Any
    ) -> None:
        """Polls through ``for_seconds`` and raises ``UnexpectedMessageError`` naming the new mail that matches, if any came."""
        match, options = wait_arguments("expect_no_message", match, options, keywords)
        self.client.expect_no_message(self.id, match, self._counted(options), for_seconds=for_seconds)

    def _wait(
        self, wait: str, count: int, match: Optional[MessageMatch], options: Optional[WaitOptions], keywords: Dict[str, Any]
    ) -> List[Message]:
        match, options = wait_arguments(wait, match, options, keywords)
        messages = self.client.wait_for_messages(self.id, count, match, self._counted(options))
        self.returned.extend(messages)
        return messages

    def _counted(self, options: WaitOptions) -> WaitOptions:
        """The options with the inbox's own count of what the wait spent, beside the caller's ``on_spent``, if any."""
        told = options.on_spent

        def on_spent(requests: int) -> None:
            self.last_wait = {"requests": requests}
            self.requests += requests
            if told is not None:
                told(requests)

        return replace(options, on_spent=on_spent)


def _found(value: Optional[str], what: str, message: Message) -> str:
    if value is None:
        raise LookupError(f"The message {message['id']} ({message['subject']!r}) holds no {what}")
    return value
