"""The live tests' service, started once for the session (see ``service.py``)."""

import os
import signal
import tempfile
from typing import Iterator

import pytest
from service import LiveService, admin, start


@pytest.fixture(scope="session", autouse=True)
def live() -> Iterator[LiveService]:
    given = {name: os.environ.get(name) for name in ("TEMPMAIL_BASE_URL", "TEMPMAIL_API_KEY", "SMTP_PORT")}
    if all(given.values()):
        yield LiveService(given["TEMPMAIL_BASE_URL"] or "", int(given["SMTP_PORT"] or 0), given["TEMPMAIL_API_KEY"] or "")
        return
    with tempfile.TemporaryDirectory(prefix="tempmail-python-") as data_dir:
        child, base_url, smtp_port = start(data_dir)
        try:
            service = LiveService(base_url, smtp_port, admin(["account", "create", "--plan", "paid"], data_dir))
            with pytest.MonkeyPatch.context() as patch:
                for name, value in service.env().items():
                    patch.setenv(name, value)
                yield service
        finally:
            os.killpg(child.pid, signal.SIGTERM)
            child.wait(timeout=20)
