"""The typed errors of the client: one class per error code of the OpenAPI document."""

import json
from typing import Any, Dict, List, Mapping, Optional, Type, TypedDict

from .wait_report import WaitReport


class ErrorDetail(TypedDict, total=False):
    """One entry of an error's ``details``: which field was wrong (``field``), and why (``reason``)."""

    field: str
    reason: str


class TempmailError(Exception):
    """
    An error answer of the service, in the contract's error shape: the HTTP ``status``, the stable
    ``code``, the human ``message``, the ``request_id`` (the same as the ``X-Request-Id`` header;
    quote it when you report a problem) and the field ``details`` of a 400 or 422.
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        request_id: Optional[str],
        details: Optional[List[ErrorDetail]] = None,
    ) -> None:
        super().__init__(message)
        self.status: Optional[int] = status
        self.code = code
        self.message = message
        self.request_id = request_id
        self.details: List[ErrorDetail] = list(details or [])


class InvalidRequestError(TempmailError):
    """400 ``invalid_request``."""


class InvalidApiKeyError(TempmailError):
    """401 ``invalid_api_key``: the key is missing, unknown or revoked."""


class ForbiddenError(TempmailError):
    """403 ``forbidden``."""


class NotFoundError(TempmailError):
    """404 ``resource_not_found``."""


class ConflictError(TempmailError):
    """409 ``idempotency_key_reused`` or ``address_unavailable``."""


class PayloadTooLargeError(TempmailError):
    """413 ``payload_too_large``."""


class PolicyViolationError(TempmailError):
    """422 ``policy_violation``."""


class InternalError(TempmailError):
    """500 ``internal_error``."""


class ServiceUnavailableError(TempmailError):
    """503 ``service_unavailable``."""


#: The reasons a 429's ``details`` give for the limit it met.
RATE_LIMIT_REASONS = (
    "allowance_exhausted",
    "short_window_key",
    "short_window_account",
    "key_changes",
    "gateway_throttle",
    "firewall_throttle",
)


def rate_limit_reason_of(details: List[ErrorDetail]) -> Optional[str]:
    """The reason a 429's details give, if it is one the client knows."""
    for detail in details:
        reason = detail.get("reason") if isinstance(detail, dict) else None
        if reason in RATE_LIMIT_REASONS:
            return reason
    return None


class RateLimitedError(TempmailError):
    """429 ``rate_limit_exceeded``: the short-window limit still refused the request after the client's own retries."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        request_id: Optional[str],
        details: Optional[List[ErrorDetail]] = None,
        retry_after: Optional[int] = None,
    ) -> None:
        super().__init__(status, code, message, request_id, details)
        #: The last ``Retry-After``, in seconds.
        self.retry_after = retry_after

    @property
    def reason(self) -> Optional[str]:
        """
        Which limit was met, from the answer's ``details`` (never its message):
        ``"allowance_exhausted"``, ``"short_window_key"``, ``"short_window_account"``,
        ``"key_changes"``, ``"gateway_throttle"`` or ``"firewall_throttle"`` (the API gateway's or
        the firewall's own throttle); ``None`` for a 429 without one (a service older than the
        reasons).
        """
        return rate_limit_reason_of(self.details)


class AllowanceExhaustedError(RateLimitedError):
    """
    The account's request allowance is used up (a 429 whose reason is ``allowance_exhausted``, or,
    from a service that gives no reason, whose ``RateLimit-Remaining`` is 0). Waiting
    does not help: a free account's 100 requests never renew, and a paid balance grows only by a
    grant. Reported at once, never retried.
    """


class TempmailNetworkError(Exception):
    """The service could not be reached (connection refused, reset, a request time-out) after the client's retries."""


class WaitTimeoutError(Exception):
    """
    A wait reached its deadline (``reason == "deadline"``) or its request budget (``"budget"``)
    without the messages it waited for. The message explains the wait (``report``, a
    ``WaitReport``): its criteria, deadline, polls and requests, how many mails arrived in its
    window, each that did not match with the criterion it failed first (subject, sender and
    received time; never a body), and how many expired meanwhile. ``requests`` is what the wait
    spent; ``seen_subjects`` the subjects that arrived but did not match, newest first;
    ``__cause__`` the last error, if any. ``status`` and ``request_id`` are those of the last
    error answer (None when there was none); ``code`` is ``"wait_timeout"``.
    """

    code = "wait_timeout"

    def __init__(
        self,
        email_id: str,
        timeout: float,
        requests: int,
        report: "WaitReport",
        reason: str = "deadline",
        last_error: Optional[BaseException] = None,
    ) -> None:
        within = "before the wait's request budget was spent" if reason == "budget" else f"within {timeout:g} s"
        last = f"; last error: {last_error}" if last_error is not None else ""
        super().__init__(f"No matching message arrived at {email_id} {within} ({report.summary(requests)}){last}{report.lines()}")
        self.email_id = email_id
        self.timeout = timeout
        self.requests = requests
        self.report = report
        self.seen_subjects = [rejection.subject for rejection in reversed(report.rejected)]
        self.reason = reason
        self.status: Optional[int] = last_error.status if isinstance(last_error, TempmailError) else None
        self.request_id: Optional[str] = last_error.request_id if isinstance(last_error, TempmailError) else None


def _quoted(subject: str) -> str:
    return json.dumps(subject, ensure_ascii=False)


_BY_CODE: Dict[str, Type[TempmailError]] = {
    "invalid_request": InvalidRequestError,
    "invalid_api_key": InvalidApiKeyError,
    "forbidden": ForbiddenError,
    "resource_not_found": NotFoundError,
    "idempotency_key_reused": ConflictError,
    "address_unavailable": ConflictError,
    "payload_too_large": PayloadTooLargeError,
    "policy_violation": PolicyViolationError,
    "internal_error": InternalError,
    "service_unavailable": ServiceUnavailableError,
}

_BY_STATUS: Dict[int, Type[TempmailError]] = {
    400: InvalidRequestError,
    401: InvalidApiKeyError,
    403: ForbiddenError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    422: PolicyViolationError,
    500: InternalError,
    503: ServiceUnavailableError,
}


def error_for(
    status: int,
    code: str,
    message: str,
    request_id: Optional[str],
    details: List[ErrorDetail],
    retry_after: Optional[int],
    remaining: Optional[str],
) -> TempmailError:
    """
    The typed error of an answer, chosen by its code, else by its status. A 429 whose
    ``RateLimit-Remaining`` is 0 is the used-up allowance (the short window's 429 reports the
    allowance still left); every other 429 is the short window.
    """
    if status == 429:
        reason = rate_limit_reason_of(details)
        exhausted = (remaining or "").strip() == "0" if reason is None else reason == "allowance_exhausted"
        kind = AllowanceExhaustedError if exhausted else RateLimitedError
        return kind(status, code, message, request_id, details, retry_after)
    error_type = _BY_CODE.get(code) or _BY_STATUS.get(status) or TempmailError
    return error_type(status, code, message, request_id, details)


class UnexpectedResponseError(TempmailError):
    """
    An answer the contract never gives, so the client cannot use it: a redirect (``code``
    ``"unexpected_redirect"``; the contract never redirects, and the client follows none, so the
    key never goes to another origin), a 2xx whose body is not the operation's JSON shape
    (``"malformed_response"``), or a body past the client's bound (``"response_too_large"``). The
    message says what was wrong; ``status`` is the answer's.
    """


class UnexpectedMessageError(AssertionError):
    """
    Mail arrived that should not have: within ``expect_no_message``'s window, or more matching
    mail than an ``exact`` wait's count. Names each message by subject, sender and received time
    (never its body); ``messages`` holds them whole.
    """

    code = "unexpected_message"

    def __init__(self, email_id: str, messages: "List[Mapping[str, Any]]", why: str) -> None:
        named = "; ".join(
            f"{_quoted(str(message.get('subject', '')))} from {_quoted(str(message.get('from', '')))} received {message.get('received_at')}"
            for message in messages
        )
        super().__init__(f"{len(messages)} unexpected message{'s' if len(messages) != 1 else ''} arrived at {email_id} ({why}): {named}")
        self.email_id = email_id
        self.messages = list(messages)
