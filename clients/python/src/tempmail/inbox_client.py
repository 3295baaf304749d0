"""What an inbox asks of its client: so that the inbox and the client it is made by need not import each other."""

from typing import List, Optional, Protocol

from .mark import Mark
from .message_match import MessageMatch
from .resources import Message, MessagePage
from .wait_options import WaitOptions


class InboxClient(Protocol):
    """The client's operations an ``Inbox`` (and the pytest plugin's report of it) uses; ``TempmailClient`` has them."""

    def mark(self, email_id: str) -> Mark: ...

    def wait_for_messages(
        self, email_id: str, count: int, match: Optional[MessageMatch] = None, options: Optional[WaitOptions] = None
    ) -> List[Message]: ...

    def expect_no_message(
        self, email_id: str, match: Optional[MessageMatch] = None, options: Optional[WaitOptions] = None, *, for_seconds: float
    ) -> None: ...

    def list_messages(
        self, email_id: str, *, limit: Optional[int] = None, cursor: Optional[str] = None, request_timeout: Optional[float] = None
    ) -> MessagePage: ...
