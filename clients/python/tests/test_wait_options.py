"""
The waits' options as one ``WaitOptions`` value beside the ``MessageMatch``, the keyword form of
earlier releases beside them, and what a mix of the two is told; against a stand-in inbox on a
fake clock.
"""

import dataclasses
from typing import Any, Dict, List

import pytest
from stand_in import EMAIL, StandIn

from tempmail import MessageMatch, WaitOptions, WaitTimeoutError


def test_one_options_value_serves_many_waits_of_the_client_and_the_inbox_as_the_keywords_did() -> None:
    service = StandIn()
    service.arrive("Your code", "code 111111")
    service.arrive("Your code", "code 222222")
    spent: List[int] = []
    patient = WaitOptions(timeout=10, max_requests=6, on_spent=spent.append)
    inbox = service.client.inbox(service.email())
    assert service.client.wait_for_message(EMAIL, MessageMatch(subject="code"), patient)["text"] == "code 111111"
    assert inbox.wait_for_code(MessageMatch(subject="code"), patient) == "222222"
    # The caller's on_spent is told, and the inbox still counts what its wait spent.
    assert spent == [2, 2] and inbox.last_wait == {"requests": 2} and inbox.requests == 2
    with pytest.raises(WaitTimeoutError) as raised:
        inbox.wait_for_link(None, patient)
    assert raised.value.timeout == 10 and raised.value.requests == 5
    assert service.clock == 10


def test_the_options_value_is_frozen_and_replace_makes_a_variant() -> None:
    base = WaitOptions(timeout=10)
    with pytest.raises(dataclasses.FrozenInstanceError):
        base.timeout = 20  # type: ignore[misc]
    assert dataclasses.replace(base, max_requests=3) == WaitOptions(timeout=10, max_requests=3)


def test_options_given_both_as_a_value_and_as_keywords_are_refused_before_any_request() -> None:
    service = StandIn()
    inbox = service.client.inbox(service.email())
    with pytest.raises(ValueError, match=r"Give the options as a WaitOptions or as keywords \(timeout, .*\), not both"):
        service.client.wait_for_message(EMAIL, None, WaitOptions(timeout=5), max_requests=3)
    with pytest.raises(ValueError, match="not both"):
        inbox.wait_for_code(MessageMatch(subject="a"), WaitOptions(), subject="b")
    with pytest.raises(TypeError, match="options must be a WaitOptions, got dict"):
        inbox.wait_for_messages(1, None, {"timeout": 5})  # type: ignore[arg-type]
    assert service.requests == []


@pytest.mark.parametrize("wait", ["wait_for_message", "wait_for_messages", "wait_for_code", "wait_for_link", "expect_no_message"])
def test_a_misspelt_keyword_is_the_type_error_python_gives_naming_the_wait(wait: str) -> None:
    service = StandIn()
    inbox = service.client.inbox(service.email())
    arguments: Dict[str, Any] = {"for_seconds": 5} if wait == "expect_no_message" else {}
    call = getattr(inbox, wait)
    with pytest.raises(TypeError, match=rf"^{wait}\(\) got an unexpected keyword argument 'subjet'$"):
        call(2, subjet="code", **arguments) if wait == "wait_for_messages" else call(subjet="code", **arguments)
    assert service.requests == []


def test_expect_no_message_watches_for_seconds_and_refuses_a_timeout_or_exact_in_its_options() -> None:
    service = StandIn()
    for options in (WaitOptions(timeout=5), WaitOptions(exact=True)):
        with pytest.raises(ValueError, match="expect_no_message watches for_seconds"):
            service.client.expect_no_message(EMAIL, None, options, for_seconds=10)
    assert service.requests == []
    mark = service.client.mark(EMAIL)
    service.arrive("Your code", "code 111111")  # came after the mark, but does not match
    assert service.client.expect_no_message(EMAIL, MessageMatch(subject="welcome"), WaitOptions(after=mark, max_requests=7), for_seconds=10) is None
    assert service.clock == 10
