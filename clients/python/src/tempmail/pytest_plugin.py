"""
The pytest plugin (entry point ``pytest11``): a ``tempmail`` client configured from
``TEMPMAIL_API_KEY`` and ``TEMPMAIL_BASE_URL`` (or ``--tempmail-base-url``), and an ``inbox``
fixture that reserves a fresh address for each test (one charged create).

Example::

    def test_signup(inbox):
        my_app.sign_up(inbox.address)
        assert inbox.wait_for_code(subject="verify") == "482913"

Each test that uses ``inbox`` gets a ``tempmail inbox`` report section with the requests it spent
(also the ``tempmail_requests`` property of ``--junitxml``); when it fails, the section also holds
the inbox's address, the mails received and the mail each wait returned, with its text, code and
link (``tempmail_inbox`` in the JUnit XML). Never the key.
"""

from __future__ import annotations

from typing import Iterator

import pytest

from .client import TempmailClient
from .failure_report import failure_report, spent_line
from .inbox import Inbox


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tempmail", "temporary inboxes (tempmail)")
    group.addoption(
        "--tempmail-base-url",
        dest="tempmail_base_url",
        default=None,
        help="the tempmail service's address, without /v1 (default: TEMPMAIL_BASE_URL, else http://127.0.0.1:3000)",
    )


@pytest.fixture(scope="session")
def tempmail(pytestconfig: pytest.Config) -> TempmailClient:
    """The client, from ``TEMPMAIL_API_KEY`` and ``--tempmail-base-url`` or ``TEMPMAIL_BASE_URL``."""
    return TempmailClient(base_url=pytestconfig.getoption("tempmail_base_url"))


@pytest.fixture
def inbox(tempmail: TempmailClient) -> Iterator[Inbox]:
    """A fresh address for this test, with the waits a test needs (``wait_for_message``, ``wait_for_code``, ``wait_for_link``)."""
    yield tempmail.inbox(tempmail.create_email())


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: "pytest.CallInfo[None]") -> Iterator[None]:
    """After a test's call, while its inbox is still there: the report section and the JUnit properties."""
    outcome = yield
    report: pytest.TestReport = outcome.get_result()  # type: ignore[attr-defined]
    inbox = getattr(item, "funcargs", {}).get("inbox")
    if report.when != "call" or not isinstance(inbox, Inbox):
        return
    text = failure_report(inbox) if report.failed else spent_line(inbox)
    report.sections.append(("tempmail inbox", text))
    item.user_properties.append(("tempmail_requests", str(1 + inbox.requests)))
    if report.failed:
        item.user_properties.append(("tempmail_inbox", text))
