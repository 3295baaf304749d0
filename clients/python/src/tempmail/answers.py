"""What an answer of the API means: the shapes of its success answers, checked before the client hands one to its caller, and its errors."""

import json
import urllib.parse
from typing import Any, Dict, List, Mapping, Optional

from .errors import ErrorDetail, TempmailError, UnexpectedResponseError, error_for
from .retry_policy import retry_after_of
from .transport import HttpResponse

#: The largest JSON answer the client reads: 10 MiB. The API's JSON answers are buffered Lambda
#: responses (at most 6 MB) and the local front refuses bodies past 10 MB; a message, the largest
#: resource, stays near 135 KB (bodies of 32 KB each, bounded headers and attachment list).
MAX_JSON_BYTES = 10 * 1024 * 1024
#: The largest file (raw source or attachment) the client reads: 64 MiB. The service refuses mail
#: over 40 MB, and an attachment is a part of its mail.
MAX_FILE_BYTES = 64 * 1024 * 1024

#: A JSON object's expected fields: each a Python type, a tuple ``(list, element)``, or a nested shape.
Shape = Dict[str, Any]

EMAIL: Shape = {name: str for name in ("id", "address", "local_part", "domain", "status", "created_at", "expires_at")}
_LISTED: Shape = {
    **{name: str for name in ("id", "email_id", "from", "subject", "received_at", "expires_at", "source_path")},
    "to": (list, str),
    "size_bytes": int,
    "attachment_count": int,
}
_ATTACHMENT: Shape = {
    **{name: str for name in ("id", "filename", "content_type", "expires_at", "download_path")},
    "size_bytes": int,
}
MESSAGE: Shape = {**_LISTED, "text": str, "html": str, "attachments": (list, _ATTACHMENT)}
DOMAIN: Shape = {"domain": str, "create_enabled": bool, "receive_enabled": bool}
USAGE: Shape = {"plan": str, "allowance_mode": str, "used_requests": int, "remaining_requests": int, "additional_requests": int}
_PAGINATION: Shape = {"has_more": bool}


def page_of(item: Shape) -> Shape:
    """A listing's shape: ``data``, a list of ``item``, and ``pagination``."""
    return {"data": (list, item), "pagination": _PAGINATION}


MESSAGE_PAGE = page_of(_LISTED)
DOMAIN_PAGE = page_of(DOMAIN)


def one(item: Shape) -> Shape:
    """A single resource's shape: ``{"data": item}``."""
    return {"data": item}


def parse_answer(status: int, body: bytes, shape: Shape, what: str) -> Any:
    """
    The JSON of a 2xx answer, checked against ``shape``; else ``UnexpectedResponseError`` naming
    the first thing wrong (never a ``JSONDecodeError``, ``KeyError`` or ``TypeError`` later).
    Extra fields are allowed: the contract may add fields.
    """
    try:
        value = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        preview = body[:80].decode("utf-8", "replace")
        raise UnexpectedResponseError(status, "malformed_response", f"{what}: the answer is not JSON (it begins {preview!r})", None) from None
    problem = _problem(value, shape, "the answer")
    if problem is not None:
        raise UnexpectedResponseError(status, "malformed_response", f"{what}: {problem}", None)
    return value


def _problem(value: Any, expected: Any, where: str) -> Optional[str]:
    """What is wrong with ``value`` at ``where``, or None."""
    if isinstance(expected, dict):
        if not isinstance(value, dict):
            return f"{where} is {_kind(value)}, not an object"
        for name, field in expected.items():
            if name not in value:
                return f"{where} lacks {name!r}"
            problem = _problem(value[name], field, f"{where}[{name!r}]" if where != "the answer" else repr(name))
            if problem is not None:
                return problem
        if "next_cursor" in value and not isinstance(value["next_cursor"], str):
            return f"{where}['next_cursor'] is {_kind(value['next_cursor'])}, not a string"
        return None
    if isinstance(expected, tuple):
        if not isinstance(value, list):
            return f"{where} is {_kind(value)}, not a list"
        for index, element in enumerate(value):
            problem = _problem(element, expected[1], f"{where}[{index}]")
            if problem is not None:
                return problem
        return None
    if expected is int and (isinstance(value, bool) or not isinstance(value, int)):
        return f"{where} is {_kind(value)}, not an integer"
    if not isinstance(value, expected):
        return f"{where} is {_kind(value)}, not {_NAMES[expected]}"
    return None


_NAMES: Mapping[type, str] = {str: "a string", bool: "a boolean", int: "an integer"}


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "a list", dict: "an object"}.get(type(value), type(value).__name__)


def unusable_answer(method: str, path: str, answer: HttpResponse, max_body: int, api_key: str) -> Optional[UnexpectedResponseError]:
    """
    The error of an answer the client cannot use whatever its status: a redirect, named by where
    it pointed (without user information, the key redacted should it be there), or a body past
    ``max_body``. None for any other answer.
    """
    if 300 <= answer.status < 400:
        location = answer.headers.get("location", "")
        parts = urllib.parse.urlsplit(location)
        if parts.username is not None or parts.password is not None:
            location = urllib.parse.urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))
        location = location.replace(api_key, "[redacted]")[:300] or "nowhere (no Location)"
        return UnexpectedResponseError(
            answer.status, "unexpected_redirect",
            f"{method} {path}: the service answered {answer.status}, a redirect to {location}; the API never redirects, so the client "
            "follows none (check base_url: a proxy or an http-to-https redirect in front of the API?)",
            answer.headers.get("x-request-id"),
        )  # fmt: skip
    if len(answer.body) > max_body:
        return UnexpectedResponseError(
            answer.status, "response_too_large", f"{method} {path}: the answer's body is longer than {max_body:,} bytes", None
        )
    return None


def error_of(answer: HttpResponse) -> TempmailError:
    """The typed error of a non-2xx answer, from the contract's error shape (or the bare status behind a proxy)."""
    text = answer.body.decode("utf-8", "replace")
    parsed: Any = None
    try:
        parsed = json.loads(text)
    except ValueError:
        pass  # not the contract's shape (a proxy in between): keep the status and the text
    error: Mapping[str, Any] = parsed.get("error", {}) if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict) else {}
    request_id = error.get("request_id") or answer.headers.get("x-request-id")
    code = error.get("code") or f"http_{answer.status}"
    message = error.get("message") or (text[:200] or f"HTTP {answer.status}")
    details: List[ErrorDetail] = list(error.get("details") or [])
    return error_for(
        answer.status, code, message, request_id, details, retry_after_of(answer.headers), answer.headers.get("ratelimit-remaining")
    )
