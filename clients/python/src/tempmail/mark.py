"""What an inbox held when it was marked: the line between mail that was there and mail that is new."""

from dataclasses import dataclass
from typing import Optional, Tuple


@dataclass(frozen=True)
class Mark:
    """What an inbox held when it was marked: its message ids and the newest ``received_at`` as the server wrote it."""

    email_id: str
    ids: Tuple[str, ...]
    newest_received_at: Optional[str]
