"""
Answers the contract never gives: a redirect (against two real loopback servers, through the real
urllib transport), a 2xx that is not the operation's JSON, and a body past the client's bound.
Each is the client's own error, never another origin's answer, a JSONDecodeError or a KeyError.
"""

import http.server
import threading
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pytest
from stand_in import StandIn, json_answer

from tempmail import HttpRequest, HttpResponse, TempmailClient, UnexpectedResponseError
from tempmail.answers import MAX_JSON_BYTES

KEY = "tm_local_secret_key_0001"
EMAIL = {"id": "eml_x", "address": "a@b.test", "local_part": "a", "domain": "b.test", "status": "active", "created_at": "", "expires_at": ""}


class Recorder(http.server.BaseHTTPRequestHandler):
    """Answers every request with ``answer`` (status, headers, body) and records what it saw."""

    seen: List[Tuple[str, str, Optional[str]]]
    answer: Tuple[int, Dict[str, str], bytes]

    def handle_one(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        self.rfile.read(length)
        self.seen.append((self.command, self.path, self.headers.get("authorization")))
        status, headers, body = self.answer
        self.send_response(status)
        for name, value in {**headers, "content-length": str(len(body))}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = handle_one

    def log_message(self, *args: Any) -> None:
        pass


def serve(answer: Tuple[int, Dict[str, str], bytes]) -> Tuple[http.server.HTTPServer, List[Tuple[str, str, Optional[str]]]]:
    seen: List[Tuple[str, str, Optional[str]]] = []
    handler = type("Handler", (Recorder,), {"seen": seen, "answer": answer})
    server = http.server.HTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return server, seen


@pytest.fixture
def redirecting() -> Iterator[Tuple[str, List[Tuple[str, str, Optional[str]]], List[Tuple[str, str, Optional[str]]]]]:
    """An API address that answers 302 to another origin, which would answer a valid email and records whether it saw the key."""
    elsewhere, elsewhere_seen = serve((201, {"content-type": "application/json"}, b'{"data": %s}' % repr(EMAIL).replace("'", '"').encode()))
    target = f"http://localhost:{elsewhere.server_address[1]}/v1/emails?api_key={KEY}"
    api, api_seen = serve((302, {"location": target}, b""))
    yield f"http://127.0.0.1:{api.server_address[1]}", api_seen, elsewhere_seen
    for server in (api, elsewhere):
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("call", ["get_email", "create_email"])
def test_a_redirect_is_an_error_naming_where_it_pointed_and_the_other_origin_never_sees_the_key(redirecting: Any, call: str) -> None:
    base_url, api_seen, elsewhere_seen = redirecting
    client = TempmailClient(api_key=KEY, base_url=base_url)
    with pytest.raises(UnexpectedResponseError) as raised:
        client.get_email("eml_x") if call == "get_email" else client.create_email()
    assert elsewhere_seen == []
    assert [method for method, _, _ in api_seen] == ["GET" if call == "get_email" else "POST"]
    assert (raised.value.status, raised.value.code) == (302, "unexpected_redirect")
    message = str(raised.value)
    assert "a redirect to http://localhost:" in message and "/v1/emails?api_key=[redacted]" in message
    assert KEY not in message


def test_a_redirects_location_is_named_without_its_user_information() -> None:
    service = StandIn(api_key=KEY)
    service.script = [lambda request: HttpResponse(307, {"location": f"https://user:{KEY}@elsewhere.example/x"}, b"")]
    with pytest.raises(UnexpectedResponseError) as raised:
        service.client.get_usage()
    assert "a redirect to https://elsewhere.example/x;" in str(raised.value)
    assert KEY not in str(raised.value) and "user" not in str(raised.value)


def test_a_redirect_ends_a_wait_at_once() -> None:
    service = StandIn()
    service.override = lambda path: HttpResponse(301, {"location": "https://elsewhere.example/"}, b"")
    with pytest.raises(UnexpectedResponseError, match="redirect to https://elsewhere.example/"):
        service.client.wait_for_message("eml_aaaaaaaaaa")
    assert len(service.requests) == 1


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (b"<html>Welcome to the captive portal</html>", "GET /v1/emails/eml_x: the answer is not JSON (it begins '<html>Welcome"),
        (b"\xff\xfe{}", "the answer is not JSON"),
        (b"[1, 2]", "GET /v1/emails/eml_x: the answer is a list, not an object"),
        (b'{"data": "x"}', "'data' is a string, not an object"),
        (b'{"email": {}}', "the answer lacks 'data'"),
        (b'{"data": {"id": "eml_x"}}', "'data' lacks 'address'"),
        (b'{"data": {"id": "eml_x", "address": null, "local_part": "a", "domain": "b", "status": "active", "created_at": "", "expires_at": ""}}',
         "'data'['address'] is null, not a string"),
    ],
)
def test_a_2xx_that_is_not_the_operations_json_is_the_clients_error_naming_what_was_wrong(body: bytes, why: str) -> None:
    service = StandIn()
    service.script = [lambda request: HttpResponse(200, {"content-type": "application/json"}, body)]
    with pytest.raises(UnexpectedResponseError) as raised:
        service.client.get_email("eml_x")
    assert why in str(raised.value)
    assert (raised.value.status, raised.value.code) == (200, "malformed_response")


def test_a_message_or_a_listing_missing_what_the_contract_promises_is_refused_in_a_wait_and_a_read_too() -> None:
    service = StandIn()
    service.arrive("Hello")
    listed = service.messages[0]
    service.script = [json_answer({"data": [{**listed, "received_at": 5}], "pagination": {"has_more": False}})]
    with pytest.raises(UnexpectedResponseError, match=r"'data'\[0\]\['received_at'\] is a number, not a string"):
        service.client.wait_for_message("eml_aaaaaaaaaa")
    broken = {name: value for name, value in listed.items() if name != "text"}
    service.script = [json_answer({"data": broken})]
    with pytest.raises(UnexpectedResponseError, match=r"'data' lacks 'text'"):
        service.client.get_message(listed["id"])
    service.script = [json_answer({"data": {**listed, "attachments": [{"id": "att_1"}]}})]
    with pytest.raises(UnexpectedResponseError, match=r"'data'\['attachments'\]\[0\] lacks 'filename'"):
        service.client.get_message(listed["id"])
    service.script = [json_answer({"data": [], "pagination": {"has_more": True, "next_cursor": 7}})]
    with pytest.raises(UnexpectedResponseError, match=r"'pagination'\['next_cursor'\] is a number, not a string"):
        service.client.list_messages("eml_aaaaaaaaaa")


def test_a_body_past_the_bound_is_the_clients_error_and_the_transport_is_told_the_bound() -> None:
    service = StandIn()
    service.script = [lambda request: HttpResponse(200, {}, b" " * (request.max_body + 1))]
    with pytest.raises(UnexpectedResponseError, match=f"longer than {MAX_JSON_BYTES:,} bytes") as raised:
        service.client.get_email("eml_x")
    assert raised.value.code == "response_too_large"
    request: HttpRequest = service.requests[0]
    assert request.max_body == MAX_JSON_BYTES
    service.script = [lambda request: HttpResponse(200, {"content-type": "message/rfc822"}, b"x" * 10)]
    service.client.get_message_source("msg_x")
    assert service.requests[1].max_body > MAX_JSON_BYTES


def test_the_real_transport_reads_no_more_than_one_byte_past_the_bound() -> None:
    server, _ = serve((200, {"content-type": "application/json"}, b"{" + b" " * 5000 + b"}"))
    try:
        from tempmail.transport import urllib_transport

        answer = urllib_transport(HttpRequest("GET", f"http://127.0.0.1:{server.server_address[1]}/", {}, None, 5.0, 100))
        assert len(answer.body) == 101
    finally:
        server.shutdown()
        server.server_close()
