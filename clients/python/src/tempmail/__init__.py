"""
A typed client of the tempmail API (a receive-only temporary email service), with the waits,
retries and extraction an end-to-end test needs, and a pytest plugin (``tempmail`` and
``inbox`` fixtures). Standard library only.
"""

from .client import DEFAULT_BASE_URL, OPERATION_METHODS, TempmailClient
from .errors import (
    AllowanceExhaustedError,
    ConflictError,
    ErrorDetail,
    ForbiddenError,
    InternalError,
    InvalidApiKeyError,
    InvalidRequestError,
    NotFoundError,
    PayloadTooLargeError,
    PolicyViolationError,
    RateLimitedError,
    ServiceUnavailableError,
    TempmailError,
    TempmailNetworkError,
    UnexpectedMessageError,
    UnexpectedResponseError,
    WaitTimeoutError,
)
from .extract import ExtractableMessage, extract_code, extract_codes, extract_link, extract_links
from .html_text import decode_entities, html_to_text
from .inbox import Inbox
from .parse_from import Sender, parse_from
from .resources import (
    Attachment,
    CreateEmailRequest,
    Domain,
    DomainPage,
    Email,
    FileBody,
    Message,
    MessageListItem,
    MessagePage,
    Pagination,
    Usage,
)
from .retry_policy import RetryPolicy
from .transport import HttpRequest, HttpResponse, Transport, TransportError
from .mark import Mark
from .message_match import MessageMatch, TextMatcher
from .wait_cost import worst_case_requests
from .wait_options import WaitOptions
from .wait_report import Rejection, WaitReport

__version__ = "0.2.0"

__all__ = [
    "DEFAULT_BASE_URL",
    "OPERATION_METHODS",
    "AllowanceExhaustedError",
    "Attachment",
    "ConflictError",
    "CreateEmailRequest",
    "Domain",
    "DomainPage",
    "Email",
    "ErrorDetail",
    "ExtractableMessage",
    "FileBody",
    "ForbiddenError",
    "HttpRequest",
    "HttpResponse",
    "Inbox",
    "InternalError",
    "InvalidApiKeyError",
    "InvalidRequestError",
    "Mark",
    "Message",
    "MessageListItem",
    "MessageMatch",
    "MessagePage",
    "NotFoundError",
    "Pagination",
    "PayloadTooLargeError",
    "PolicyViolationError",
    "RateLimitedError",
    "Rejection",
    "RetryPolicy",
    "Sender",
    "ServiceUnavailableError",
    "TempmailClient",
    "TempmailError",
    "TempmailNetworkError",
    "TextMatcher",
    "Transport",
    "TransportError",
    "UnexpectedMessageError",
    "UnexpectedResponseError",
    "Usage",
    "WaitOptions",
    "WaitReport",
    "WaitTimeoutError",
    "decode_entities",
    "extract_code",
    "extract_codes",
    "extract_link",
    "extract_links",
    "html_to_text",
    "parse_from",
    "worst_case_requests",
]
