"""The shapes of the API's resources, as the OpenAPI document defines them (JSON objects as dicts)."""

from dataclasses import dataclass
from typing import List, Optional, TypedDict


class Email(TypedDict):
    """A reserved address (``GET /v1/emails/{email_id}``)."""

    id: str
    address: str
    local_part: str
    domain: str
    status: str
    created_at: str
    expires_at: str


class Attachment(TypedDict):
    id: str
    filename: str
    content_type: str
    size_bytes: int
    expires_at: str
    download_path: str


# ``from`` is a Python keyword: the functional form keeps the API's own field names.
MessageListItem = TypedDict(
    "MessageListItem",
    {
        "id": str,
        "email_id": str,
        "from": str,
        "to": List[str],
        "subject": str,
        "received_at": str,
        "expires_at": str,
        "size_bytes": int,
        "attachment_count": int,
        "source_path": str,
    },
)
MessageListItem.__doc__ = "One element of a message listing: a message without its bodies and attachment list."

Message = TypedDict(
    "Message",
    {
        "id": str,
        "email_id": str,
        "from": str,
        "to": List[str],
        "subject": str,
        "received_at": str,
        "expires_at": str,
        "size_bytes": int,
        "attachment_count": int,
        "text": str,
        "html": str,
        "attachments": List[Attachment],
        "source_path": str,
    },
)
Message.__doc__ = "A whole message: ``text``, sanitized ``html``, attachment metadata."


class Domain(TypedDict):
    domain: str
    create_enabled: bool
    receive_enabled: bool


class Usage(TypedDict):
    plan: str
    allowance_mode: str
    used_requests: int
    remaining_requests: int
    additional_requests: int


class _PaginationBase(TypedDict):
    has_more: bool


class Pagination(_PaginationBase, total=False):
    """``next_cursor`` is there exactly when ``has_more`` is true; send it back unchanged."""

    next_cursor: str


class MessagePage(TypedDict):
    data: List[MessageListItem]
    pagination: Pagination


class DomainPage(TypedDict):
    data: List[Domain]
    pagination: Pagination


class CreateEmailRequest(TypedDict, total=False):
    """The body of ``POST /v1/emails``: both parts are chosen by the service when omitted."""

    local_part: str
    domain: str


@dataclass(frozen=True)
class FileBody:
    """A downloaded file (raw source or attachment)."""

    bytes: bytes
    content_type: str
    #: The file name from ``Content-Disposition``, when one is given.
    filename: Optional[str]
