"""Waits against a stand-in inbox on a fake clock: what they return, what they cost, and their deadline."""

import re
import socket
import threading
from typing import Any, Iterator, List

import pytest
from stand_in import EMAIL, NO_REQUEST, StandIn, error_answer, json_answer, refused

from tempmail import (
    AllowanceExhaustedError,
    HttpRequest,
    HttpResponse,
    NotFoundError,
    RateLimitedError,
    RetryPolicy,
    TempmailClient,
    TempmailNetworkError,
    WaitTimeoutError,
    worst_case_requests,
)


def arrive_on_sleep(service: StandIn, *arrivals: Any) -> None:
    """After the n-th sleep, the n-th arrival (a subject, a tuple of ``arrive``'s arguments, or None for none) lands in the inbox."""
    pending = {index + 1: arrival for index, arrival in enumerate(arrivals)}

    def land(count: int) -> None:
        arrival = pending.pop(count, None)
        if isinstance(arrival, tuple):
            service.arrive(*arrival)
        elif arrival is not None:
            service.arrive(arrival)

    service.during_sleep = land


def test_a_second_wait_returns_the_second_mail_not_the_first_again() -> None:
    service = StandIn()
    service.arrive("Your sign-up code", "code 111111")
    assert service.client.wait_for_message(EMAIL, subject="code")["text"] == "code 111111"
    arrive_on_sleep(service, ("Your reset code", "code 222222"))
    assert service.client.wait_for_message(EMAIL, subject="code")["text"] == "code 222222"


def test_the_inbox_shares_the_clients_memory_two_waits_give_two_codes() -> None:
    service = StandIn()
    inbox = service.client.inbox(service.email())
    service.arrive("Sign-up", "code 111111")
    assert inbox.wait_for_code() == "111111"
    arrive_on_sleep(service, ("Reset", "code 222222"))
    assert inbox.wait_for_code() == "222222"
    assert inbox.last_wait == {"requests": 3}
    assert inbox.requests == 5


def test_with_a_mark_a_matching_mail_already_there_is_not_returned_and_a_poll_stops_paging_at_the_mark() -> None:
    service = StandIn()
    for index in range(150):
        service.arrive(f"old {index}")
    service.arrive("Your code", "code 111111")
    mark = service.client.mark(EMAIL)
    assert len(mark.ids) == 100
    arrive_on_sleep(service, ("Your code", "code 222222"))
    service.requests.clear()
    message = service.client.wait_for_message(EMAIL, after=mark, subject="code")
    assert message["text"] == "code 222222"
    # One page per poll (never the 151 old messages again), plus the read.
    assert [request.url.replace("http://127.0.0.1:9", "") for request in service.requests] == [
        f"/v1/emails/{EMAIL}/messages?limit=100",
        f"/v1/emails/{EMAIL}/messages?limit=100",
        f"/v1/messages/{message['id']}",
    ]


def test_a_mark_of_another_email_is_refused() -> None:
    service = StandIn()
    mark = service.client.mark(EMAIL)
    with pytest.raises(ValueError, match="The mark was taken of"):
        service.client.wait_for_message("eml_bbbbbbbbbb", after=mark)


def test_pages_through_the_whole_list_once_then_stops_at_the_first_page_an_earlier_poll_saw() -> None:
    service = StandIn()
    for index in range(150):
        service.arrive(f"old {index}")
    arrive_on_sleep(service, "Wanted")
    assert service.client.wait_for_message(EMAIL, subject="wanted")["subject"] == "Wanted"
    assert [request.url.split("?")[-1] for request in service.requests[:3]] == ["limit=100", "limit=100&cursor=100", "limit=100"]


def test_matches_any_recipient_from_and_body_and_wait_for_messages_returns_count_mails_oldest_first() -> None:
    service = StandIn()
    service.arrive("For bob", "", ["bob@tempmail.localhost"])
    arrive_on_sleep(service, ("For alice 1", "hello", ["carol@example.com", "Alice@tempmail.localhost"]), ("For alice 2", "hello", ["alice@tempmail.localhost"]))
    mails = service.client.wait_for_messages(EMAIL, 2, to="alice@", from_=re.compile(r"app@example\.com"), body=re.compile("^hel"))
    assert [mail["subject"] for mail in mails] == ["For alice 1", "For alice 2"]


def test_a_body_matcher_reads_each_candidate_once_and_reports_what_did_not_match() -> None:
    service = StandIn()
    service.arrive("Newsletter", "nothing here")
    spent: List[int] = []
    with pytest.raises(WaitTimeoutError) as raised:
        service.client.wait_for_message(EMAIL, body="code", timeout=2, on_spent=spent.append)
    assert service.paths().count(f"/v1/messages/{service.messages[0]['id']}") == 1
    assert raised.value.seen_subjects == ["Newsletter"]
    assert spent == [raised.value.requests] == [3]
    assert str(raised.value) == (
        f'No matching message arrived at {EMAIL} within 2 s (waited for: body "code"; deadline 2 s after its start; 2 polls, 3 requests; '
        "1 arrived in the window, 1 did not match, 0 expired meanwhile)\n"
        '  "Newsletter" from "App <app@example.com>" at 2026-11-22T12:00:00.000Z (failed body)'
    )


@pytest.mark.parametrize("timeout", [float("nan"), 0, -1, float("inf"), "30s", True])
def test_refuses_a_deadline_that_is_not_a_positive_finite_number_before_any_request(timeout: Any) -> None:
    service = StandIn()
    with pytest.raises(ValueError):
        service.client.wait_for_message(EMAIL, timeout=timeout)
    with pytest.raises(ValueError):
        TempmailClient(api_key="tm_x", request_timeout=timeout)
    assert service.requests == []


def test_a_2_s_wait_against_429_with_retry_after_5_ends_at_its_deadline_with_the_429_as_cause() -> None:
    service = StandIn()
    service.override = lambda path: error_answer(429, "rate_limit_exceeded", {"retry-after": "5", "ratelimit-remaining": "40"})(NO_REQUEST)
    with pytest.raises(WaitTimeoutError) as raised:
        service.client.wait_for_message(EMAIL, timeout=2)
    assert raised.value.reason == "deadline"
    assert isinstance(raised.value.__cause__, RateLimitedError)
    assert (raised.value.status, raised.value.code, raised.value.request_id) == (429, "wait_timeout", "req_0123456789abcdef0123")
    assert service.clock == 2


def test_polls_through_5xx_and_network_errors_then_reports_the_last_error_at_the_deadline() -> None:
    service = StandIn()
    service.script = [error_answer(500, "internal_error"), refused]
    arrive_on_sleep(service, None, "Hello")
    assert service.client.wait_for_message(EMAIL, timeout=10)["subject"] == "Hello"

    unreachable = StandIn()
    unreachable.override = lambda path: refused(NO_REQUEST)
    with pytest.raises(WaitTimeoutError) as raised:
        unreachable.client.wait_for_message(EMAIL, timeout=3)
    assert isinstance(raised.value.__cause__, TempmailNetworkError)
    assert raised.value.status is None


def test_ends_at_once_on_a_used_up_allowance_and_on_a_404() -> None:
    service = StandIn()
    service.override = lambda path: error_answer(429, "rate_limit_exceeded", {"retry-after": "60", "ratelimit-remaining": "0"})(NO_REQUEST)
    with pytest.raises(AllowanceExhaustedError):
        service.client.wait_for_message(EMAIL)
    assert len(service.requests) == 1
    with pytest.raises(NotFoundError):
        StandIn().client.wait_for_message("eml_bbbbbbbbbb")


def test_refuses_to_start_a_wait_whose_worst_case_exceeds_max_requests_unless_told_to() -> None:
    service = StandIn()
    with pytest.raises(ValueError) as refused:
        service.client.inbox(service.email()).wait_for_code(max_requests=3)
    assert str(refused.value) == (
        "This wait may spend 10 requests (9 polls in 30 s on its schedule and 1 read), more than max_requests=3: raise max_requests, "
        "shorten the timeout, poll less often (initial_interval, max_interval), or pass allow_over_budget=True to let it end at the budget"
    )
    with pytest.raises(ValueError, match="may spend 7 requests"):
        service.client.expect_no_message(EMAIL, for_seconds=10, max_requests=6)
    assert service.requests == []
    # The worst case within the budget starts; fewer polls (a longer first interval) bring a long wait within it.
    with pytest.raises(WaitTimeoutError):
        service.client.wait_for_message(EMAIL, max_requests=10)
    assert worst_case_requests(60, initial_interval=10, max_interval=10) == 7
    with pytest.raises(WaitTimeoutError) as slower:
        service.client.inbox(service.email()).wait_for_link(timeout=60, max_requests=7, initial_interval=10, max_interval=10)
    assert slower.value.requests == 6


def test_spends_at_most_max_requests_and_a_30_s_wait_that_finds_nothing_costs_9() -> None:
    service = StandIn()
    with pytest.raises(WaitTimeoutError) as raised:
        service.client.wait_for_message(EMAIL, max_requests=3, allow_over_budget=True)
    assert (raised.value.reason, raised.value.requests, len(service.requests)) == ("budget", 3, 3)
    assert "before the wait's request budget was spent" in str(raised.value)
    assert worst_case_requests(30) == 10

    quiet = StandIn()
    with pytest.raises(WaitTimeoutError) as timed_out:
        quiet.client.wait_for_message(EMAIL, timeout=30)
    assert timed_out.value.requests == 9
    assert quiet.sleeps == [1, 1.5, 2.25, 3.375, 5, 5, 5, 5, 1.875]


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A listener that accepts connections and never answers."""
    listener = socket.create_server(("127.0.0.1", 0))
    held: List[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.05)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except socket.timeout:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    stop.set()
    thread.join()
    for connection in held:
        connection.close()
    listener.close()


def test_against_a_server_that_never_answers_a_wait_ends_at_its_deadline_its_requests_cut_short(silent_server: str) -> None:
    client = TempmailClient(api_key="tm_local_test", base_url=silent_server)
    with pytest.raises(WaitTimeoutError) as raised:
        client.wait_for_message(EMAIL, timeout=0.3)
    assert isinstance(raised.value.__cause__, TempmailNetworkError)
    assert silent_server in str(raised.value.__cause__)


def test_against_a_server_that_never_answers_a_single_call_takes_a_request_time_out(silent_server: str) -> None:
    client = TempmailClient(api_key="tm_local_test", base_url=silent_server, retry=RetryPolicy(max_server_retries=0))
    with pytest.raises(TempmailNetworkError, match="timed out after 0.1 s"):
        client.get_usage(request_timeout=0.1)


def test_refuses_a_malformed_key_without_the_key_in_the_message_and_a_v1_base_url() -> None:
    with pytest.raises(ValueError) as raised:
        TempmailClient(api_key="tm_secret value")
    assert "secret" not in str(raised.value)
    with pytest.raises(ValueError, match="must not end in /v1"):
        TempmailClient(api_key="tm_x", base_url="http://127.0.0.1:3000/v1/")


def test_names_tempmail_api_key_when_none_is_given_and_defaults_the_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TEMPMAIL_API_KEY", raising=False)
    monkeypatch.delenv("TEMPMAIL_BASE_URL", raising=False)
    with pytest.raises(ValueError, match="TEMPMAIL_API_KEY"):
        TempmailClient()
    monkeypatch.setenv("TEMPMAIL_API_KEY", "tm_from_env")
    assert TempmailClient().base_url == "http://127.0.0.1:3000"
    assert "tm_from_env" not in repr(TempmailClient())


def test_every_request_carries_the_key_as_a_bearer_token() -> None:
    service = StandIn(api_key="tm_local_abc")
    service.script = [json_answer({"data": {"plan": "paid", "allowance_mode": "balance", "used_requests": 1, "remaining_requests": 9, "additional_requests": 0}})]
    service.client.get_usage()
    request: HttpRequest = service.requests[0]
    assert request.headers["Authorization"] == "Bearer tm_local_abc"
    assert isinstance(json_answer({})(request), HttpResponse)
