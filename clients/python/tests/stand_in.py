"""A stand-in service behind the real client, for the tests of retries and waits: no network, a fake clock."""

import json
import urllib.parse
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Dict, List, Optional

from tempmail import Email, HttpRequest, HttpResponse, Message, TempmailClient, TransportError

EMAIL = "eml_aaaaaaaaaa"
START = datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc)

#: The request a test passes to an answer it makes outside an exchange.
NO_REQUEST = HttpRequest("GET", "http://127.0.0.1:9/", {}, None, 1.0)

#: An answer a test scripts: a response, or a failure of the exchange.
Answer = Callable[[HttpRequest], HttpResponse]


def json_answer(body: Any, status: int = 200, headers: Optional[Dict[str, str]] = None) -> Answer:
    return lambda request: HttpResponse(status, {"content-type": "application/json", **(headers or {})}, json.dumps(body).encode())


def error_answer(status: int, code: str, headers: Optional[Dict[str, str]] = None, reason: Optional[str] = None) -> Answer:
    error: Dict[str, Any] = {"code": code, "message": f"{code} happened", "request_id": "req_0123456789abcdef0123"}
    if reason is not None:
        error["details"] = [{"reason": reason}]
    body = {"error": error}
    return json_answer(body, status, {"x-request-id": "req_0123456789abcdef0123", **(headers or {})})


def refused(request: HttpRequest) -> HttpResponse:
    raise TransportError("[Errno 111] Connection refused")


class StandIn:
    """One inbox listed newest first (``limit`` honoured, numeric cursors), a clock that sleeps advance, and scripted answers first."""

    def __init__(self, **client_options: Any) -> None:
        self.clock = 0.0
        self.wall = START
        self.messages: List[Message] = []
        self.requests: List[HttpRequest] = []
        self.sleeps: List[float] = []
        self.script: List[Answer] = []
        #: An answer for every request to a path, after the script.
        self.override: Optional[Callable[[str], Optional[HttpResponse]]] = None
        #: Runs during each sleep, as the outside world would meanwhile.
        self.during_sleep: Optional[Callable[[int], None]] = None
        options: Dict[str, Any] = {"api_key": "tm_local_test", "base_url": "http://127.0.0.1:9/", "random": lambda: 0.5}
        self.client = TempmailClient(**{**options, **client_options, "transport": self.send, "now": self.now, "sleep": self.sleep})

    def now(self) -> float:
        return self.clock

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.clock += seconds
        self.wall += timedelta(seconds=seconds)
        if self.during_sleep is not None:
            self.during_sleep(len(self.sleeps))

    def email(self) -> Email:
        """The stand-in inbox's email."""
        return {"id": EMAIL, "address": "x@tempmail.localhost", "local_part": "x", "domain": "tempmail.localhost", "status": "active", "created_at": "", "expires_at": ""}

    def arrive(self, subject: str, text: str = "", to: Optional[List[str]] = None) -> str:
        message_id = f"msg_{len(self.messages):010d}"
        stamp = self.wall.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        self.messages.insert(0, {
            "id": message_id, "email_id": EMAIL, "from": "App <app@example.com>", "to": to or ["x@tempmail.localhost"],
            "subject": subject, "received_at": stamp, "expires_at": stamp, "size_bytes": 10, "attachment_count": 0,
            "source_path": f"/v1/messages/{message_id}/source", "text": text, "html": "", "attachments": [],
        })  # fmt: skip
        return message_id

    def paths(self) -> List[str]:
        return [urllib.parse.urlsplit(request.url).path for request in self.requests]

    def send(self, request: HttpRequest) -> HttpResponse:
        self.requests.append(request)
        if self.script:
            return self.script.pop(0)(request)
        url = urllib.parse.urlsplit(request.url)
        answer = self.override(url.path) if self.override else None
        if answer is not None:
            return answer
        query = dict(urllib.parse.parse_qsl(url.query))
        if (request.method, url.path) == ("POST", "/v1/emails"):
            return json_answer({"data": self.email()}, 201)(request)
        if url.path == f"/v1/emails/{EMAIL}/messages":
            limit, start = int(query.get("limit", "20")), int(query.get("cursor", "0"))
            data = [{k: v for k, v in m.items() if k not in ("text", "html", "attachments")} for m in self.messages[start : start + limit]]
            more = start + limit < len(self.messages)
            pagination = {"has_more": True, "next_cursor": str(start + limit)} if more else {"has_more": False}
            return json_answer({"data": data, "pagination": pagination})(request)
        for message in self.messages:
            if url.path == f"/v1/messages/{message['id']}":
                return json_answer({"data": message})(request)
        return error_answer(404, "resource_not_found")(request)
