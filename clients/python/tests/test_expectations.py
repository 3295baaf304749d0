"""
``expect_no_message``, the exact count of ``wait_for_messages`` and the tests given as one
``MessageMatch``, against a stand-in inbox on a fake clock.
"""

import re
from typing import List

import pytest
from stand_in import EMAIL, StandIn

from tempmail import MessageMatch, UnexpectedMessageError, WaitTimeoutError


def test_expect_no_message_polls_through_its_window_and_once_more_at_its_end() -> None:
    service = StandIn()
    polled_at: List[float] = []
    service.override = lambda path: polled_at.append(service.clock)  # type: ignore[func-returns-value]
    service.arrive("Newsletter", "nothing to see")
    assert service.client.expect_no_message(EMAIL, subject="code", for_seconds=10) is None
    assert polled_at == [0, 1, 2.5, 4.75, 8.125, 10]
    assert service.clock == 10


def test_expect_no_message_fails_naming_the_mail_that_came_in_its_last_seconds_never_its_body() -> None:
    service = StandIn(api_key="tm_local_secret")
    service.during_sleep = lambda count: service.arrive("Your code", "the secret body 482913") if count == 5 else None
    inbox = service.client.inbox(service.email())
    with pytest.raises(UnexpectedMessageError) as raised:
        inbox.expect_no_message(MessageMatch(subject=re.compile("code", re.I)), for_seconds=10)
    message = str(raised.value)
    assert message == (
        f'1 unexpected message arrived at {EMAIL} (none should have within 10 s): "Your code" from "App <app@example.com>" '
        "received 2026-11-22T12:00:10.000Z"
    )
    assert "secret" not in message and "482913" not in message
    assert [each["subject"] for each in raised.value.messages] == ["Your code"]
    assert isinstance(raised.value, AssertionError)
    assert inbox.last_wait == {"requests": 7}
    # The mail it named is still there for a wait that does expect it.
    assert inbox.wait_for_code(timeout=1) == "482913"


def test_expect_no_message_that_spends_its_budget_before_its_end_says_so() -> None:
    service = StandIn()
    with pytest.raises(WaitTimeoutError) as raised:
        service.client.expect_no_message(EMAIL, for_seconds=60, max_requests=2, allow_over_budget=True)
    assert raised.value.reason == "budget"


def test_an_exact_count_fails_naming_the_mail_beyond_it_and_without_exact_the_count_is_returned() -> None:
    for exact in (False, True):
        service = StandIn()
        service.during_sleep = lambda count: [service.arrive(f"Welcome {n}") for n in range(3)] if count == 1 else None
        if not exact:
            mails = service.client.wait_for_messages(EMAIL, 2, MessageMatch(subject="welcome"))
            assert [mail["subject"] for mail in mails] == ["Welcome 0", "Welcome 1"]
            continue
        inbox = service.client.inbox(service.email())
        with pytest.raises(UnexpectedMessageError, match=r'\(more than the 2 awaited\): "Welcome 2"'):
            inbox.wait_for_messages(2, subject="welcome", exact=True)


def test_an_exact_count_returns_when_the_poll_that_completes_it_holds_no_more() -> None:
    service = StandIn()
    arrivals = {1: "Welcome 0", 2: "Other", 3: "Welcome 1"}
    service.during_sleep = lambda count: service.arrive(arrivals[count]) if count in arrivals else None
    mails = service.client.wait_for_messages(EMAIL, 2, subject="welcome", exact=True)
    assert [mail["subject"] for mail in mails] == ["Welcome 0", "Welcome 1"]


def test_a_match_and_keywords_at_once_are_refused_before_any_request() -> None:
    service = StandIn()
    with pytest.raises(ValueError, match="not both"):
        service.client.wait_for_message(EMAIL, MessageMatch(subject="a"), from_="b")
    with pytest.raises(TypeError, match="must be a MessageMatch"):
        service.client.inbox(service.email()).wait_for_code("subject")  # type: ignore[arg-type]
    assert service.requests == []
