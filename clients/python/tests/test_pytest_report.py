"""
The pytest plugin's report of a test's inbox, read from a pytest run of a small test file (``-rA``
and ``--junitxml``) whose ``tempmail`` client talks to the stand-in: the requests each test spent,
and for a failed one what came and what the wait returned. Never the key.
"""

import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

CONFTEST = '''
import sys
import pytest
from stand_in import StandIn

pytest_plugins = [] if "tempmail.pytest_plugin" in sys.modules else ["tempmail.pytest_plugin"]


@pytest.fixture
def stand_in():
    return StandIn(api_key="tm_local_never_shown_0123")


@pytest.fixture
def tempmail(stand_in):
    return stand_in.client
'''

TESTS = '''
def test_signup_fails_after_its_wait(inbox, stand_in):
    stand_in.arrive("Weekly news", "not for the wait")
    stand_in.arrive("Verify your email", "Your code is 482913\\nhttps://app.example/verify?t=abc")
    assert inbox.wait_for_code(subject="verify") == "000000"


def test_signup_passes(inbox, stand_in):
    stand_in.arrive("Verify your email", "Your code is 482913")
    assert inbox.wait_for_code(subject="verify") == "482913"
'''


def test_a_failed_test_reports_its_inbox_and_every_test_its_requests(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_app.py").write_text(TESTS)
    here = Path(__file__).parent
    env = {"PYTHONPATH": f"{here.parent / 'src'}:{here}", "PATH": "/usr/bin:/bin"}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-rA", "-p", "no:cacheprovider", "--junitxml=report.xml", "test_app.py"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    output = run.stdout + run.stderr
    assert run.returncode == 1, output
    failed = output[output.index("_ test_signup_fails_after_its_wait _") : output.index("= PASSES =")]
    section = failed[failed.index("- tempmail inbox -") :]
    assert "address: x@tempmail.localhost (eml_aaaaaaaaaa)\nrequests: 3 (1 create, 2 by waits and marks)\nreceived: 2 mails\n" in section
    assert '2026-11-22T12:00:00.000Z "Weekly news" from "App <app@example.com>"' in section
    assert 'returned by a wait: "Verify your email" from "App <app@example.com>" at 2026-11-22T12:00:00.000Z' in section
    assert "  code: 482913\n  link: https://app.example/verify?t=abc\n  text:\n    Your code is 482913\n" in section
    passed = output[output.index("= PASSES =") :]
    assert "- tempmail inbox -" in passed and "requests: 3 (1 create, 2 by waits and marks)" in passed
    assert "address:" not in passed

    cases = {case.get("name"): case for case in ElementTree.parse(tmp_path / "report.xml").iter("testcase")}
    properties = {
        name: {prop.get("name"): prop.get("value") for prop in case.iter("property")} for name, case in cases.items()
    }
    assert properties["test_signup_passes"] == {"tempmail_requests": "3"}
    assert properties["test_signup_fails_after_its_wait"]["tempmail_requests"] == "3"
    assert "code: 482913" in properties["test_signup_fails_after_its_wait"]["tempmail_inbox"]
    assert "tm_local_never_shown_0123" not in output + (tmp_path / "report.xml").read_text()
