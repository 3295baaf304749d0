"""A typed client of the tempmail API: one method per operation, with the client's duties built in."""

import json
import os
import random as random_module
import re
import time
import urllib.parse
import uuid
from dataclasses import replace
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Set, TypeVar

from . import answers
from .answers import MAX_FILE_BYTES, MAX_JSON_BYTES, error_of, parse_answer, unusable_answer
from .errors import AllowanceExhaustedError, TempmailNetworkError, UnexpectedMessageError, WaitTimeoutError
from .inbox import Inbox
from .resources import Domain, DomainPage, Email, FileBody, Message, MessageListItem, MessagePage, Usage
from .retry_policy import RetryPolicy, delay_before_retry, retry_after_of
from .transport import HttpRequest, HttpResponse, Transport, TransportError, urllib_transport
from .mark import Mark
from .message_match import MessageMatch
from .wait import PAGE, positive_seconds, take_mark, wait_for_messages
from .wait_arguments import wait_arguments
from .wait_options import WaitOptions

#: The default address of the service: the local one that ``npm start`` runs.
DEFAULT_BASE_URL = "http://127.0.0.1:3000"

#: The client method of each ``operationId`` of the OpenAPI document.
OPERATION_METHODS: Mapping[str, str] = {
    "createEmail": "create_email",
    "getEmail": "get_email",
    "listMessages": "list_messages",
    "getMessage": "get_message",
    "getMessageSource": "get_message_source",
    "getAttachment": "get_attachment",
    "listDomains": "list_domains",
    "getUsage": "get_usage",
}

#: A page of a listing.
T = TypeVar("T", MessagePage, DomainPage)


class TempmailClient:
    """
    A typed client of the tempmail API: one method per operation, with the client's duties of the
    contract built in. A create carries an Idempotency-Key made for it and reused across its own
    retries; a short-window 429 waits ``Retry-After`` plus full-jitter backoff; a used-up allowance
    raises ``AllowanceExhaustedError`` at once; 500, 503 and network failures are retried a few
    times; any other 4xx raises ``TempmailError`` at once. Durations are in seconds.

    Example::

        tempmail = TempmailClient()  # TEMPMAIL_API_KEY; TEMPMAIL_BASE_URL or http://127.0.0.1:3000
        inbox = tempmail.inbox(tempmail.create_email())
        message = inbox.wait_for_message(MessageMatch(subject=re.compile("verify", re.I)), WaitOptions(timeout=30))
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        *,
        request_timeout: float = 30.0,
        retry: Optional[RetryPolicy] = None,
        transport: Optional[Transport] = None,
        now: Optional[Callable[[], float]] = None,
        sleep: Optional[Callable[[float], None]] = None,
        random: Optional[Callable[[], float]] = None,
        idempotency_key: Optional[Callable[[], str]] = None,
    ) -> None:
        key = api_key if api_key is not None else os.environ.get("TEMPMAIL_API_KEY")
        if not key:
            raise ValueError("TempmailClient: no API key: pass api_key or set TEMPMAIL_API_KEY")
        if not re.fullmatch(r"[\x21-\x7e]+", key):
            raise ValueError(
                "TempmailClient: the API key holds a space, a control character or a non-ASCII character; check how it was copied"
            )
        self.__api_key = key
        self.base_url = _base_url_of(base_url or os.environ.get("TEMPMAIL_BASE_URL") or DEFAULT_BASE_URL)
        self.request_timeout = positive_seconds(request_timeout, "request_timeout")
        self.retry = retry or RetryPolicy()
        self._transport = transport or urllib_transport
        #: Seconds on a clock that only moves forward; ``time.monotonic`` by default.
        self.now: Callable[[], float] = now or time.monotonic
        self.sleep: Callable[[float], None] = sleep or time.sleep
        self._random = random or random_module.random
        self._new_key = idempotency_key or (lambda: f"tmc-{uuid.uuid4()}")
        #: Per email id, the message ids this client's waits returned.
        self._returned: Dict[str, Set[str]] = {}

    def __repr__(self) -> str:
        return f"TempmailClient(base_url={self.base_url!r}, api_key='[redacted]')"

    # -- operations ---------------------------------------------------------------------------

    def create_email(
        self,
        *,
        local_part: Optional[str] = None,
        domain: Optional[str] = None,
        idempotency_key: Optional[str] = None,
        request_timeout: Optional[float] = None,
    ) -> Email:
        """
        ``POST /v1/emails``: reserves an address (both parts chosen by the service when omitted).
        Pass ``idempotency_key`` to retry a create of your own after an uncertain outcome.
        """
        body = {name: value for name, value in (("local_part", local_part), ("domain", domain)) if value is not None}
        key = idempotency_key if idempotency_key is not None else self._new_key()
        answer = self._json("POST", "/v1/emails", answers.one(answers.EMAIL), body=body, idempotency_key=key, request_timeout=request_timeout)
        email: Email = answer["data"]
        return email

    def get_email(self, email_id: str, *, request_timeout: Optional[float] = None) -> Email:
        """``GET /v1/emails/{email_id}``."""
        email: Email = self._json("GET", f"/v1/emails/{_segment(email_id)}", answers.one(answers.EMAIL), request_timeout=request_timeout)["data"]
        return email

    def list_messages(
        self, email_id: str, *, limit: Optional[int] = None, cursor: Optional[str] = None, request_timeout: Optional[float] = None
    ) -> MessagePage:
        """``GET /v1/emails/{email_id}/messages``: one page, newest first. ``cursor`` is the last page's ``next_cursor``, unchanged."""
        page: MessagePage = self._json(
            "GET", f"/v1/emails/{_segment(email_id)}/messages", answers.MESSAGE_PAGE, query={"limit": limit, "cursor": cursor},
            request_timeout=request_timeout,
        )
        return page

    def messages(self, email_id: str, *, limit: Optional[int] = None) -> Iterator[MessageListItem]:
        """Every message of an email, page after page (each page is a charged request)."""
        for page in self.pages(lambda cursor: self.list_messages(email_id, limit=limit, cursor=cursor)):
            yield from page["data"]

    def get_message(self, message_id: str, *, request_timeout: Optional[float] = None) -> Message:
        """``GET /v1/messages/{message_id}``."""
        message: Message = self._json("GET", f"/v1/messages/{_segment(message_id)}", answers.one(answers.MESSAGE), request_timeout=request_timeout)["data"]
        return message

    def get_message_source(self, message_id: str, *, request_timeout: Optional[float] = None) -> FileBody:
        """``GET /v1/messages/{message_id}/source``: the raw RFC 822 bytes as received."""
        return self._file(f"/v1/messages/{_segment(message_id)}/source", request_timeout)

    def get_attachment(self, message_id: str, attachment_id: str, *, request_timeout: Optional[float] = None) -> FileBody:
        """``GET /v1/messages/{message_id}/attachments/{attachment_id}``: the attachment's bytes."""
        return self._file(f"/v1/messages/{_segment(message_id)}/attachments/{_segment(attachment_id)}", request_timeout)

    def list_domains(
        self, *, limit: Optional[int] = None, cursor: Optional[str] = None, request_timeout: Optional[float] = None
    ) -> DomainPage:
        """``GET /v1/domains``: one page."""
        page: DomainPage = self._json("GET", "/v1/domains", answers.DOMAIN_PAGE, query={"limit": limit, "cursor": cursor}, request_timeout=request_timeout)
        return page

    def domains(self, *, limit: Optional[int] = None) -> Iterator[Domain]:
        """Every domain, page after page."""
        for page in self.pages(lambda cursor: self.list_domains(limit=limit, cursor=cursor)):
            yield from page["data"]

    def get_usage(self, *, request_timeout: Optional[float] = None) -> Usage:
        """``GET /v1/usage`` (never charged)."""
        usage: Usage = self._json("GET", "/v1/usage", answers.one(answers.USAGE), request_timeout=request_timeout)["data"]
        return usage

    # -- waits ----------------------------------------------------------------------------------

    def wait_for_message(
        self, email_id: str, match: Optional[MessageMatch] = None, options: Optional[WaitOptions] = None, **keywords: Any
    ) -> Message:
        """
        Polls an email until a new message matches, and returns the whole message. Never returns a
        message an earlier wait of this client returned. Every test of ``match`` given must pass: a
        string is a case-insensitive substring, a compiled pattern is tested with ``search``; ``to``
        passes when any recipient does; ``body`` tests ``text`` and ``html``. Raises
        ``WaitTimeoutError`` at ``options.timeout`` seconds (or when ``max_requests`` are spent);
        ``on_spent`` is told the requests the wait sent. A ``max_requests`` below the wait's worst
        case (``worst_case_requests``) is a ``ValueError`` before any request, unless
        ``allow_over_budget`` lets the wait end at the budget. The tests and options may also come
        as keywords (``subject="verify", timeout=10``), as in earlier releases.
        """
        match, options = wait_arguments("wait_for_message", match, options, keywords)
        return self.wait_for_messages(email_id, 1, match, options)[0]

    def wait_for_messages(
        self, email_id: str, count: int, match: Optional[MessageMatch] = None, options: Optional[WaitOptions] = None, **keywords: Any
    ) -> List[Message]:
        """
        Waits for ``count`` new matching messages and returns them oldest first (see
        ``wait_for_message``). With ``options.exact``, raises ``UnexpectedMessageError`` when the
        poll that completes the count holds more matching new mail than ``count``.
        """
        match, options = wait_arguments("wait_for_messages", match, options, keywords)
        return wait_for_messages(self, email_id, count, match, options)

    def expect_no_message(
        self,
        email_id: str,
        match: Optional[MessageMatch] = None,
        options: Optional[WaitOptions] = None,
        *,
        for_seconds: float,
        **keywords: Any,
    ) -> None:
        """
        Polls an email through ``for_seconds`` (on the wait's schedule, and once more at its end)
        and raises ``UnexpectedMessageError`` naming the first new mail that matches (subject,
        sender, received time; never its body). Returns None when none came. A spent
        ``max_requests`` raises ``WaitTimeoutError`` (``reason`` ``"budget"``): the window was not
        watched to its end. Take a ``mark()`` before the action and pass it as ``after``. The
        window is ``for_seconds``: options with a ``timeout``, or ``exact``, are a ``ValueError``.
        """
        match, options = wait_arguments("expect_no_message", match, options, keywords)
        if options.timeout is not None or options.exact:
            raise ValueError("expect_no_message watches for_seconds: give its options no timeout and no exact")
        window = replace(options, timeout=for_seconds)
        try:
            arrived = wait_for_messages(self, email_id, 1, match, window, poll_at_deadline=True)
        except WaitTimeoutError as ended:
            if ended.reason == "deadline":
                return
            raise
        self.returned_ids(email_id).difference_update(message["id"] for message in arrived)
        raise UnexpectedMessageError(email_id, arrived, f"none should have within {for_seconds:g} s")

    def mark(self, email_id: str, *, request_timeout: Optional[float] = None) -> Mark:
        """What the inbox holds now (one charged request): take it before the action, pass it as ``after`` to the wait."""
        return take_mark(self, email_id, self._timeout(request_timeout))

    def inbox(self, email: Email) -> Inbox:
        """An email with the waits a test needs, sharing this client's memory of returned messages."""
        return Inbox(self, email)

    def returned_ids(self, email_id: str) -> Set[str]:
        """Message ids this client's waits returned for an email."""
        return self._returned.setdefault(email_id, set())

    def pages(self, fetch_page: Callable[[Optional[str]], T]) -> Iterator[T]:
        """The pages of a listing as one stream: each ``next_cursor`` is sent back unchanged."""
        cursor: Optional[str] = None
        while True:
            page = fetch_page(cursor)
            yield page
            pagination = page["pagination"]
            cursor = pagination.get("next_cursor") if pagination["has_more"] else None
            if cursor is None:
                return

    # -- what a wait uses: one attempt, no retries (the wait is the retry loop) -------------------

    def _list_once(self, email_id: str, cursor: Optional[str], request_timeout: float) -> MessagePage:
        page: MessagePage = self._json(
            "GET", f"/v1/emails/{_segment(email_id)}/messages", answers.MESSAGE_PAGE, query={"limit": PAGE, "cursor": cursor},
            request_timeout=request_timeout, once=True,
        )  # fmt: skip
        return page

    def _read_once(self, message_id: str, request_timeout: float) -> Message:
        message: Message = self._json(
            "GET", f"/v1/messages/{_segment(message_id)}", answers.one(answers.MESSAGE), request_timeout=request_timeout, once=True
        )["data"]
        return message

    # -- the exchange ---------------------------------------------------------------------------

    def _timeout(self, request_timeout: Optional[float]) -> float:
        return self.request_timeout if request_timeout is None else positive_seconds(request_timeout, "request_timeout")

    def _json(
        self,
        method: str,
        path: str,
        shape: answers.Shape,
        *,
        query: Optional[Mapping[str, Any]] = None,
        body: Optional[Mapping[str, Any]] = None,
        idempotency_key: Optional[str] = None,
        request_timeout: Optional[float] = None,
        once: bool = False,
    ) -> Any:
        answer = self._send(method, path, query, body, idempotency_key, self._timeout(request_timeout), once, MAX_JSON_BYTES)
        return parse_answer(answer.status, answer.body, shape, f"{method} {path}")

    def _file(self, path: str, request_timeout: Optional[float]) -> FileBody:
        answer = self._send("GET", path, None, None, None, self._timeout(request_timeout), False, MAX_FILE_BYTES)
        return FileBody(
            answer.body, answer.headers.get("content-type", "application/octet-stream"), _filename_of(answer.headers.get("content-disposition", ""))
        )

    def _send(
        self,
        method: str,
        path: str,
        query: Optional[Mapping[str, Any]],
        body: Optional[Mapping[str, Any]],
        idempotency_key: Optional[str],
        timeout: float,
        once: bool,
        max_body: int,
    ) -> HttpResponse:
        """
        One operation, with its retries. The same request (and Idempotency-Key) is sent each time.
        A redirect, or a body longer than ``max_body``, raises ``UnexpectedResponseError``.
        """
        url = f"{self.base_url}{path}"
        params = {name: str(value) for name, value in (query or {}).items() if value is not None}
        if params:
            url += "?" + urllib.parse.urlencode(params)
        headers = {"Authorization": f"Bearer {self.__api_key}", "Accept": "application/json", "User-Agent": "tempmail-client-python"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        if idempotency_key:
            headers["Idempotency-Key"] = idempotency_key
        request = HttpRequest(method, url, headers, None if body is None else json.dumps(body).encode(), timeout, max_body)

        server_retries = 0
        rate_limit_retries = 0
        while True:
            try:
                answer = self._transport(request)
            except TransportError as failure:
                why = f"timed out after {timeout:g} s" if failure.timed_out else str(failure)
                origin = urllib.parse.urlsplit(self.base_url)
                error = TempmailNetworkError(
                    f"{method} {path} at {origin.scheme}://{origin.netloc} failed: {why}; is the service running? (npm start runs it locally)"
                )
                if once or server_retries >= self.retry.max_server_retries:
                    raise error from failure
                self.sleep(delay_before_retry(server_retries, None, self.retry, self._random))
                server_retries += 1
                continue
            unusable = unusable_answer(method, path, answer, max_body, self.__api_key)
            if unusable is not None:
                raise unusable
            if 200 <= answer.status < 300:
                return answer

            failed = error_of(answer)
            if isinstance(failed, AllowanceExhaustedError) or once:
                raise failed
            retry_after = retry_after_of(answer.headers)
            if answer.status == 429:
                if rate_limit_retries >= self.retry.max_rate_limit_retries:
                    raise failed
                self.sleep(delay_before_retry(rate_limit_retries, retry_after, self.retry, self._random))
                rate_limit_retries += 1
                continue
            if answer.status in (500, 503) and server_retries < self.retry.max_server_retries:
                self.sleep(delay_before_retry(server_retries, retry_after, self.retry, self._random))
                server_retries += 1
                continue
            raise failed


def _base_url_of(value: str) -> str:
    """The service's origin (and any path prefix); a path ending in ``/v1`` is a mistake the client explains."""
    trimmed = value.rstrip("/")
    if re.search(r"/v1$", trimmed, re.IGNORECASE):
        raise ValueError(
            f"TempmailClient: base_url must not end in /v1 ({trimmed}): the client's paths already begin with /v1; "
            f"give the service's origin, such as {DEFAULT_BASE_URL}"
        )
    return trimmed


def _segment(value: str) -> str:
    return urllib.parse.quote(value, safe="!'()*")


def _filename_of(disposition: str) -> Optional[str]:
    star = re.search(r"filename\*\s*=\s*UTF-8''([^;]+)", disposition, re.IGNORECASE)
    if star:
        try:
            return urllib.parse.unquote(star.group(1).strip(), errors="strict")
        except UnicodeDecodeError:
            pass  # fall through to the plain parameter
    quoted = re.search(r'filename\s*=\s*"([^"]*)"', disposition, re.IGNORECASE)
    plain = re.search(r"filename\s*=\s*([^;\s]+)", disposition, re.IGNORECASE)
    return quoted.group(1) if quoted else plain.group(1) if plain else None
