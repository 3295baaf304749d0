"""
JavaScript's text rules, spelt for Python's ``re``, so that the extraction reads a mail exactly as
the TypeScript client does: JavaScript's ``\\s`` and ``trim`` know a different set of spaces than
Python's, its ``\\b`` and ``\\d`` are ASCII-only, and its ``.`` stops at four line terminators.
"""

#: JavaScript's white space and line terminators (``\\s``, and what ``trim`` removes).
SPACE_CHARS = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
SPACE = f"[{SPACE_CHARS}]"
NOT_SPACE = f"[^{SPACE_CHARS}]"
#: JavaScript's ``.`` without the ``s`` flag.
DOT = "[^\n\r\u2028\u2029]"
#: ``\\b`` before and after a word of ASCII word characters (JavaScript's word characters).
WORD_START = "(?<![A-Za-z0-9_])"
WORD_END = "(?![A-Za-z0-9_])"

_TRIMMED = "".join(chr(c) for c in [9, 10, 11, 12, 13, 32, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF])

#: The same characters as a set, for reading them one by one.
SPACE_SET = frozenset(_TRIMMED)


def trim(text: str) -> str:
    """``String.prototype.trim``."""
    return text.strip(_TRIMMED)


def last_index_of(text: str, char: str, position: int) -> int:
    """``text.lastIndexOf(char, position)`` for one character: the last index at or before ``position`` (clamped to 0), or -1."""
    return text.rfind(char, 0, max(position, 0) + 1)
