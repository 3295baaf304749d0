"""The client against the running service: each operation, the replay of a create, cursors, waits and typed errors."""

import json
import logging
import re
from typing import List, Tuple
from urllib.parse import parse_qs, urlsplit

import pytest
from service import LiveService
from mail import send_mail

from tempmail import (
    HttpRequest,
    HttpResponse,
    Inbox,
    InvalidApiKeyError,
    MessageMatch,
    NotFoundError,
    TempmailClient,
    UnexpectedMessageError,
    WaitTimeoutError,
)
from tempmail.transport import urllib_transport


def recording(exchanges: List[Tuple[HttpRequest, HttpResponse]]) -> TempmailClient:
    """A client of the service that keeps every request and its answer."""

    def transport(request: HttpRequest) -> HttpResponse:
        answer = urllib_transport(request)
        exchanges.append((request, answer))
        return answer

    return TempmailClient(transport=transport)


def test_a_replayed_create_returns_the_same_email_uncharged(tempmail: TempmailClient) -> None:
    used = tempmail.get_usage()["used_requests"]
    first = tempmail.create_email(idempotency_key="python-replay-0001")
    again = tempmail.create_email(idempotency_key="python-replay-0001")
    assert again == first
    assert tempmail.get_email(first["id"]) == first
    assert tempmail.get_usage()["used_requests"] == used + 2  # the create and the read; the replay and the usage reads are free


def test_walks_every_page_sending_each_next_cursor_back_unchanged(live: LiveService, inbox: Inbox) -> None:
    for index in range(3):
        send_mail(live.smtp_port, "App <app@example.com>", inbox.address, f"Mail {index}", text="hello")
    exchanges: List[Tuple[HttpRequest, HttpResponse]] = []
    client = recording(exchanges)
    assert [item["subject"] for item in client.messages(inbox.id, limit=1)] == ["Mail 2", "Mail 1", "Mail 0"]
    sent = [parse_qs(urlsplit(request.url).query).get("cursor") for request, _ in exchanges]
    received = [json.loads(answer.body)["pagination"].get("next_cursor") for _, answer in exchanges]
    assert sent == [None, [received[0]], [received[1]]]
    assert received[2] is None
    assert [domain["domain"] for domain in client.domains()] == ["tempmail.localhost"]


def test_waits_for_the_mail_sent_after_the_mark_matching_from_to_subject_and_body(live: LiveService, inbox: Inbox) -> None:
    send_mail(live.smtp_port, "Acme <no-reply@acme.example>", inbox.address, "Verify your email", text="Your code is 111111")
    mark = inbox.mark()
    send_mail(live.smtp_port, "Acme <no-reply@acme.example>", inbox.address, "Verify your email", text="Your code is 222222")
    message = inbox.wait_for_message(from_="acme.example", to=inbox.address, subject=re.compile("^verify", re.I), body="code", after=mark)
    assert message["text"].strip() == "Your code is 222222"
    # The next wait returns only mail not returned before: none has come, so it times out, having spent its budget.
    with pytest.raises(WaitTimeoutError) as raised:
        inbox.wait_for_message(subject="verify", timeout=5, max_requests=1, allow_over_budget=True)
    assert raised.value.reason == "budget"
    assert inbox.last_wait == {"requests": 1}


def test_a_wait_that_times_out_names_the_mail_that_came_and_the_criterion_it_failed(live: LiveService, inbox: Inbox) -> None:
    mark = inbox.mark()
    send_mail(live.smtp_port, "News <news@example.com>", inbox.address, "Weekly news", text="not a code 482913")
    with pytest.raises(WaitTimeoutError) as raised:
        inbox.wait_for_message(subject="reset", after=mark, timeout=1.5)
    message = str(raised.value)
    assert re.search(r'\(waited for: subject "reset", after a mark of 0; deadline 1.5 s after its start; \d+ polls?, \d+ requests?; 1 arrived', message)
    assert re.search(r'\n  "Weekly news" from ".*news@example\.com>" at \d{4}-\S+ \(failed subject\)$', message)
    assert "482913" not in message and live.api_key not in message


def test_downloads_the_source_and_an_attachment(live: LiveService, inbox: Inbox) -> None:
    send_mail(live.smtp_port, "App <app@example.com>", inbox.address, "Your invoice", text="attached", attachment=("invoice.bin", b"\x00\x01binary"))
    message = inbox.wait_for_message(subject="invoice")
    source = inbox.client.get_message_source(message["id"])
    assert b"Subject: Your invoice" in source.bytes
    attachment = message["attachments"][0]
    body = inbox.client.get_attachment(message["id"], attachment["id"])
    assert (body.bytes, body.filename) == (b"\x00\x01binary", "invoice.bin")


def test_errors_are_typed_with_status_code_and_request_id_and_never_hold_the_key(
    tempmail: TempmailClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with pytest.raises(NotFoundError) as missing:
        tempmail.get_message("msg_0000000000000000")
    assert (missing.value.status, missing.value.code) == (404, "resource_not_found")
    assert re.fullmatch(r"req_\S+", missing.value.request_id or "")

    wrong_key = "tm_local_not_a_real_key_0123456789"
    with pytest.raises(InvalidApiKeyError) as refused:
        TempmailClient(api_key=wrong_key).get_usage()
    assert (refused.value.status, refused.value.code) == (401, "invalid_api_key")
    shown = " ".join([str(refused.value), repr(refused.value), repr(refused.value.args), caplog.text])
    assert wrong_key not in shown


def test_expect_no_message_passes_over_other_mail_and_fails_naming_the_mail_that_came(live: LiveService, inbox: Inbox) -> None:
    mark = inbox.mark()
    send_mail(live.smtp_port, "News <news@example.com>", inbox.address, "Weekly news", text="not a code")
    inbox.expect_no_message(subject="reset", after=mark, for_seconds=1.5)
    send_mail(live.smtp_port, "Acme <no-reply@acme.example>", inbox.address, "Reset your password", text="secret 482913")
    with pytest.raises(UnexpectedMessageError) as raised:
        inbox.expect_no_message(MessageMatch(subject="reset"), after=mark, for_seconds=1.5)
    assert re.search(r'\(none should have within 1.5 s\): "Reset your password" from ".*no-reply@acme\.example>" received \d{4}-', str(raised.value))
    assert "482913" not in str(raised.value) and live.api_key not in str(raised.value)
