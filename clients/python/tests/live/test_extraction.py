"""
The extraction on realistic sign-up, reset and magic-link mails as the service delivers them: the
mails the TypeScript client's tests use (test/fixtures/signup-mails.json) go in over SMTP, and the
helpers read the stored message (``text`` and the sanitized ``html``, whose attributes keep their escaping).
"""

import json
import re
from typing import Any, Dict, List

import pytest
from service import PROJECT, LiveService
from mail import send_mail

from tempmail import Message, TempmailClient, extract_code, extract_link, extract_links

MAILS: List[Dict[str, Any]] = json.loads((PROJECT / "test" / "fixtures" / "signup-mails.json").read_text("utf-8"))


@pytest.fixture(scope="module")
def received(live: LiveService, tempmail: TempmailClient) -> Dict[str, Message]:
    email = tempmail.create_email()
    for mail in MAILS:
        send_mail(live.smtp_port, mail["from"], email["address"], mail["subject"], text=mail.get("text"), html=mail.get("html"))
    return {item["subject"]: tempmail.get_message(item["id"]) for item in tempmail.messages(email["id"], limit=100)}


def test_has_at_least_15_mails_all_delivered(received: Dict[str, Message]) -> None:
    assert len(MAILS) >= 15
    assert len(received) == len(MAILS)


@pytest.mark.parametrize("mail", MAILS, ids=[mail["name"] for mail in MAILS])
def test_finds_the_code_and_the_link_a_test_wants(mail: Dict[str, Any], received: Dict[str, Message]) -> None:
    message = received[mail["subject"]]
    if "code" in mail:
        assert extract_code(message) == mail["code"]
    if "link" in mail:
        assert extract_link(message) == mail["link"]
    for link in extract_links(message):
        assert not re.search(r"unsub|abmelden|wypisz|&amp;", link, re.IGNORECASE)


def test_finds_no_code_in_a_mail_that_has_none(received: Dict[str, Message]) -> None:
    assert extract_code(received["Votre lien de connexion"]) is None
