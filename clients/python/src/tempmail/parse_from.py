"""The sender of a message as name and address."""

import re
from typing import NamedTuple

from ._js_text import DOT, SPACE, SPACE_CHARS, trim

_ANGLE = re.compile(rf"(.*?){SPACE}*<([^<>{SPACE_CHARS}]+@[^<>{SPACE_CHARS}]+)>{SPACE}*\Z", re.DOTALL)
_BARE = re.compile(rf'([^{SPACE_CHARS}<>"]+@[^{SPACE_CHARS}<>"]+)(?:{SPACE}*\(({DOT}*)\))?\Z')
_ESCAPE = re.compile(rf"\\({DOT})")


class Sender(NamedTuple):
    """A sender: the display ``name``, unquoted (``""`` when there is none), and the ``address``, lower-cased (``""`` when none can be found)."""

    name: str
    address: str


def parse_from(sender: str) -> Sender:
    """
    Splits a message's ``from`` (the contract carries it as one display string, for example
    ``"Doe, Jane" <jane@example.com>``) into the display name and the address. The input is
    hostile data: this only parses, it never trusts.

    >>> parse_from('Example Shop <noreply@example.com>')
    Sender(name='Example Shop', address='noreply@example.com')
    """
    text = trim(sender)
    angle = _ANGLE.match(text)
    if angle:
        return Sender(_unquote(angle.group(1)), angle.group(2).lower())
    bare = _BARE.match(text)
    if bare:
        return Sender(trim(bare.group(2)) if bare.group(2) is not None else "", bare.group(1).lower())
    return Sender(_unquote(text), "")


def _unquote(name: str) -> str:
    trimmed = trim(name)
    if len(trimmed) >= 2 and trimmed.startswith('"') and trimmed.endswith('"'):
        return trim(_ESCAPE.sub(r"\1", trimmed[1:-1]))
    return trimmed
