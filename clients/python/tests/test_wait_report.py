"""A wait that times out explains itself: its criteria, its polls, and why each mail of its window did not match."""

import re

import pytest
from stand_in import EMAIL, NO_REQUEST, StandIn, error_answer

from tempmail import MessageMatch, WaitTimeoutError


def test_names_the_criteria_the_polls_and_for_each_mail_the_first_criterion_it_failed_never_a_key_or_a_body() -> None:
    service = StandIn(api_key="tm_local_secret_key")
    mark = service.client.mark(EMAIL)
    arrivals = {
        1: ("Weekly news", "the secret body 111111"),
        2: ("Your code", "the secret body 222222", ["someone@else.example"]),
        3: ("Your code", "the secret body 333333"),
    }
    service.during_sleep = lambda count: service.arrive(*arrivals[count]) if count in arrivals else None
    match = MessageMatch(subject="code", from_=re.compile("app@"), to="x@", body=re.compile(r"\d{6}"), where=lambda message: False)
    with pytest.raises(WaitTimeoutError) as raised:
        service.client.wait_for_messages(EMAIL, 2, match, after=mark, timeout=10)
    message = str(raised.value)
    assert message == (
        f"No matching message arrived at {EMAIL} within 10 s (waited for: subject \"code\", from re.compile('app@'), to \"x@\", "
        "body re.compile('\\\\d{6}'), where(message), after a mark of 0, count 2; deadline 10 s after its start; 5 polls, 6 requests; "
        "3 arrived in the window, 3 did not match, 0 expired meanwhile)\n"
        '  "Weekly news" from "App <app@example.com>" at 2026-11-22T12:00:01.000Z (failed subject)\n'
        '  "Your code" from "App <app@example.com>" at 2026-11-22T12:00:02.500Z (failed to)\n'
        '  "Your code" from "App <app@example.com>" at 2026-11-22T12:00:04.750Z (failed where)'
    )
    assert "tm_local_secret_key" not in message and "secret body" not in message
    assert [rejection.failed for rejection in raised.value.report.rejected] == ["subject", "to", "where"]
    assert raised.value.seen_subjects == ["Your code", "Your code", "Weekly news"]


def test_counts_a_mail_gone_before_its_read_as_expired_and_a_sender_that_fails_as_from() -> None:
    service = StandIn()
    gone = service.arrive("Your code", "code 111111")
    service.arrive("Your code from elsewhere")
    service.messages[0]["from"] = "Other <other@example.org>"
    service.override = lambda path: error_answer(404, "resource_not_found")(NO_REQUEST) if path == f"/v1/messages/{gone}" else None
    with pytest.raises(WaitTimeoutError) as raised:
        service.client.wait_for_message(EMAIL, subject="code", from_="app@example.com", timeout=1)
    assert "1 poll, 2 requests; 2 arrived in the window, 1 did not match, 1 expired meanwhile" in str(raised.value)
    assert str(raised.value).endswith('"Your code from elsewhere" from "Other <other@example.org>" at 2026-11-22T12:00:00.000Z (failed from)')


def test_lists_the_newest_20_mails_that_did_not_match_and_counts_the_earlier_ones() -> None:
    service = StandIn()
    for index in range(25):
        service.arrive(f"News {index}")
    with pytest.raises(WaitTimeoutError) as raised:
        service.client.wait_for_message(EMAIL, subject="code", timeout=1)
    lines = str(raised.value).split("\n")
    assert lines[1] == "  … 5 earlier ones not listed"
    assert [line.split('"')[1] for line in lines[2:]] == [f"News {index}" for index in range(5, 25)]
    assert len(raised.value.report.rejected) == 25
