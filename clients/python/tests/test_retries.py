"""The client's retries, against a scripted stand-in (the live service cannot be made to fail on demand)."""

from typing import Type

import pytest
from stand_in import NO_REQUEST, StandIn, error_answer, json_answer, refused

from tempmail import (
    AllowanceExhaustedError,
    ConflictError,
    HttpRequest,
    HttpResponse,
    InvalidApiKeyError,
    NotFoundError,
    RateLimitedError,
    RetryPolicy,
    TempmailError,
    TempmailNetworkError,
    TransportError,
    WaitTimeoutError,
)

USAGE = {"data": {"plan": "paid", "allowance_mode": "balance", "used_requests": 1, "remaining_requests": 9, "additional_requests": 0}}
EMAIL = {"data": {"id": "eml_x", "address": "a@b.test", "local_part": "a", "domain": "b.test", "status": "active", "created_at": "", "expires_at": ""}}


def test_retries_500_and_503_with_growing_full_jitter_backoff_honouring_retry_after() -> None:
    service = StandIn()
    service.script = [error_answer(500, "internal_error"), error_answer(503, "service_unavailable", {"retry-after": "2"}), json_answer(USAGE)]
    assert service.client.get_usage()["plan"] == "paid"
    assert len(service.requests) == 3
    # Half of a ceiling of 0.25 s, then Retry-After 2 s plus half of 0.5 s.
    assert service.sleeps == [0.125, 2.25]


def test_gives_up_after_three_retries_of_a_503_and_raises_its_error() -> None:
    service = StandIn()
    service.script = [error_answer(503, "service_unavailable")] * 4
    with pytest.raises(TempmailError) as raised:
        service.client.get_usage()
    assert (raised.value.status, raised.value.code, raised.value.request_id) == (503, "service_unavailable", "req_0123456789abcdef0123")
    assert len(service.requests) == 4


def test_retries_a_network_failure_then_reports_it_naming_the_call_and_never_the_key() -> None:
    service = StandIn(api_key="tm_secret_value")
    service.script = [refused] * 4
    with pytest.raises(TempmailNetworkError) as raised:
        service.client.get_usage()
    assert len(service.requests) == 4
    assert str(raised.value) == (
        "GET /v1/usage at http://127.0.0.1:9 failed: [Errno 111] Connection refused; is the service running? (npm start runs it locally)"
    )
    assert "tm_secret_value" not in repr(raised.value) + repr(service.client)


def test_keeps_one_idempotency_key_across_the_retries_of_one_create_and_a_new_one_per_create() -> None:
    service = StandIn()
    service.script = [refused, error_answer(503, "service_unavailable"), json_answer(EMAIL, 201, {"idempotency-replayed": "true"}), json_answer(EMAIL, 201)]
    assert service.client.create_email(local_part="a")["id"] == "eml_x"
    service.client.create_email()
    keys = [request.headers["Idempotency-Key"] for request in service.requests]
    assert keys[0] == keys[1] == keys[2] and keys[3] != keys[0]
    assert 16 <= len(keys[0]) <= 255
    assert [request.body for request in service.requests] == [b'{"local_part": "a"}'] * 3 + [b"{}"]


def test_a_create_with_a_caller_key_sends_that_key() -> None:
    service = StandIn()
    service.script = [json_answer(EMAIL, 201)]
    service.client.create_email(idempotency_key="signup-retry-0001")
    assert service.requests[0].headers["Idempotency-Key"] == "signup-retry-0001"


def test_waits_retry_after_plus_jitter_on_a_short_window_429_up_to_its_limit() -> None:
    service = StandIn()
    service.script = [error_answer(429, "rate_limit_exceeded", {"retry-after": "3", "ratelimit-remaining": "50"})] * 5
    with pytest.raises(RateLimitedError) as raised:
        service.client.get_usage()
    assert not isinstance(raised.value, AllowanceExhaustedError)
    assert raised.value.retry_after == 3
    assert service.sleeps == [3.125, 3.25, 3.5, 4.0]


def test_reports_a_used_up_allowance_at_once_never_retried() -> None:
    service = StandIn()
    service.script = [error_answer(429, "rate_limit_exceeded", {"retry-after": "60", "ratelimit-remaining": "0"})]
    with pytest.raises(AllowanceExhaustedError) as raised:
        service.client.get_usage()
    assert (raised.value.status, raised.value.code, raised.value.request_id) == (429, "rate_limit_exceeded", "req_0123456789abcdef0123")
    assert (len(service.requests), service.sleeps) == (1, [])


def test_tells_the_limit_of_a_429_from_its_reason_not_its_headers() -> None:
    service = StandIn()
    service.script = [error_answer(429, "rate_limit_exceeded", {"retry-after": "60", "ratelimit-remaining": "3"}, "allowance_exhausted")]
    with pytest.raises(AllowanceExhaustedError) as exhausted:
        service.client.get_usage()
    assert (exhausted.value.reason, len(service.requests)) == ("allowance_exhausted", 1)

    service = StandIn()
    service.script = [error_answer(429, "rate_limit_exceeded", {"retry-after": "3", "ratelimit-remaining": "0"}, "short_window_key")] * 5
    with pytest.raises(RateLimitedError) as limited:
        service.client.get_usage()
    assert not isinstance(limited.value, AllowanceExhaustedError)
    assert (limited.value.reason, len(service.requests)) == ("short_window_key", 5)


@pytest.mark.parametrize("reason", ["gateway_throttle", "firewall_throttle"])
def test_reads_the_reason_of_a_429_made_in_front_of_the_service_and_retries_it_as_the_short_window(reason: str) -> None:
    # The gateway's or firewall's own 429: Retry-After, no RateLimit-* headers, its reason in the body.
    service = StandIn()
    service.script = [error_answer(429, "rate_limit_exceeded", {"retry-after": "1"}, reason)] * 5
    with pytest.raises(RateLimitedError) as limited:
        service.client.get_usage()
    assert not isinstance(limited.value, AllowanceExhaustedError)
    assert (limited.value.reason, len(service.requests)) == (reason, 5)


def test_a_429_without_a_reason_has_none_and_falls_back_to_the_remaining_header() -> None:
    service = StandIn()
    service.script = [error_answer(429, "rate_limit_exceeded", {"retry-after": "60", "ratelimit-remaining": "0"})]
    with pytest.raises(AllowanceExhaustedError) as raised:
        service.client.get_usage()
    assert raised.value.reason is None


@pytest.mark.parametrize(
    ("status", "code", "kind"),
    [(401, "invalid_api_key", InvalidApiKeyError), (404, "resource_not_found", NotFoundError), (409, "idempotency_key_reused", ConflictError)],
)
def test_never_retries_other_4xx_and_types_them_by_code(status: int, code: str, kind: Type[TempmailError]) -> None:
    service = StandIn()
    service.script = [error_answer(status, code)]
    with pytest.raises(kind) as raised:
        service.client.get_email("eml_x")
    assert (raised.value.status, raised.value.code, len(service.requests)) == (status, code, 1)


def test_a_retry_policy_changes_the_limits() -> None:
    service = StandIn(retry=RetryPolicy(max_server_retries=0))
    service.script = [error_answer(500, "internal_error")]
    with pytest.raises(TempmailError):
        service.client.get_usage()
    assert len(service.requests) == 1


def test_a_request_time_out_is_a_network_failure_that_says_so() -> None:
    def slow(request: HttpRequest) -> HttpResponse:
        raise TransportError("timed out", timed_out=True)

    service = StandIn(retry=RetryPolicy(max_server_retries=0), request_timeout=2.5)
    service.script = [slow]
    with pytest.raises(TempmailNetworkError, match="timed out after 2.5 s"):
        service.client.get_usage()
    assert service.requests[0].timeout == 2.5


@pytest.mark.parametrize(("status", "code"), [(429, "rate_limit_exceeded"), (503, "service_unavailable")])
def test_a_retry_after_of_100000_s_is_waited_as_the_contracts_minute_at_most(status: int, code: str) -> None:
    service = StandIn()
    service.script = [error_answer(status, code, {"retry-after": "100000", "ratelimit-remaining": "50"}), json_answer(USAGE)]
    assert service.client.get_usage()["plan"] == "paid"
    assert service.sleeps == [60.125]


def test_a_wait_never_sleeps_a_long_retry_after_past_a_minute_nor_past_its_deadline() -> None:
    service = StandIn()
    service.override = lambda path: error_answer(429, "rate_limit_exceeded", {"retry-after": "100000", "ratelimit-remaining": "50"})(NO_REQUEST)
    with pytest.raises(WaitTimeoutError):
        service.client.wait_for_message("eml_aaaaaaaaaa", timeout=150)
    assert service.sleeps == [60, 60, 30]
    assert service.clock == 150
