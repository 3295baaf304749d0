"""What the pytest plugin reports of a test's inbox: the requests it spent, and on a failure what came and what a wait returned."""

import json
from typing import List

from .extract import extract_code, extract_link
from .inbox import Inbox

#: How much of a returned mail's text a failure report shows.
TEXT_SHOWN = 2000


def spent_line(inbox: Inbox) -> str:
    """The requests a test spent through its inbox: the fixture's create, and its waits and marks."""
    return f"requests: {1 + inbox.requests} (1 create, {inbox.requests} by waits and marks)"


def failure_report(inbox: Inbox) -> str:
    """
    The inbox of a failed test: its address, the mails it holds (subject, sender, received time;
    one charged list request), and each mail a wait returned with its text and the code and link
    extracted from it. Never the key: the client keeps it to itself.
    """
    lines: List[str] = [f"address: {inbox.address} ({inbox.id})", spent_line(inbox)]
    try:
        page = inbox.client.list_messages(inbox.id, limit=100)
        listed = page["data"]
        more = " (the newest 100)" if page["pagination"]["has_more"] else ""
        lines.append(f"received: {len(listed)} mail{'' if len(listed) == 1 else 's'}{more}")
        lines.extend(f"  {item['received_at']} {_quoted(item['subject'])} from {_quoted(item['from'])}" for item in listed)
    except Exception as error:  # the report must not hide the test's own failure
        lines.append(f"received: not listed ({type(error).__name__}: {error})")
    for message in inbox.returned:
        text = message["text"]
        shown = text if len(text) <= TEXT_SHOWN else f"{text[:TEXT_SHOWN]}… ({len(text) - TEXT_SHOWN} more characters)"
        lines.append(f"returned by a wait: {_quoted(message['subject'])} from {_quoted(message['from'])} at {message['received_at']}")
        lines.append(f"  code: {extract_code(message)}")
        lines.append(f"  link: {extract_link(message)}")
        lines.append("  text:")
        lines.extend(f"    {line}" for line in shown.splitlines())
    return "\n".join(lines)


def _quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)
