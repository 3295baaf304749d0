"""
The pytest plugin (entry point ``pytest11``): a ``tempmail`` client configured from
``TEMPMAIL_API_KEY`` and ``TEMPMAIL_BASE_URL`` (or ``--tempmail-base-url``), and an ``inbox``
fixture that reserves a fresh address for each test (one charged create).

Example::

    def test_signup(inbox):
        my_app.sign_up(inbox.address)
        assert inbox.wait_for_code(subject="verify") == "482913"
"""

from __future__ import annotations

from typing import Iterator

import pytest

from .client import TempmailClient
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
