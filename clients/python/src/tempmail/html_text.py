"""Readable text from an HTML body, as the extraction needs it."""

import re
from typing import Dict, Match

from ._js_text import SPACE, WORD_END, trim

_NAMED: Dict[str, str] = {
    "amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'", "nbsp": " ", "copy": "©", "reg": "®", "trade": "™",
    "hellip": "…", "mdash": "—", "ndash": "–", "lsquo": "‘", "rsquo": "’", "ldquo": "“", "rdquo": "”", "laquo": "«",
    "raquo": "»", "euro": "€", "middot": "·", "bull": "•", "zwnj": "", "zwj": "", "shy": "", "ensp": " ", "emsp": " ", "thinsp": " ",
}  # fmt: skip

_ENTITY = re.compile(r"&(#x[0-9a-f]+|#[0-9]+|[a-z]+);?", re.IGNORECASE | re.ASCII)
_HIDDEN = re.compile(rf"<(style|script|head|title){WORD_END}[^>]*>[\s\S]*?</\1{SPACE}*>", re.IGNORECASE | re.ASCII)
_COMMENT = re.compile(r"<!--[\s\S]*?-->")
_BREAK = re.compile(rf"<br{SPACE}*/?>", re.IGNORECASE | re.ASCII)
_BLOCK = re.compile(rf"</?(p|div|tr|table|h[1-6]|li|ul|ol|blockquote|center|section){WORD_END}[^>]*>", re.IGNORECASE | re.ASCII)
_CELL_END = re.compile(rf"</t[dh]{SPACE}*>", re.IGNORECASE | re.ASCII)
_TAG = re.compile(r"<[^>]*>")
_RUN_OF_SPACES = re.compile("[ \t\u00a0]+")


def decode_entities(text: str) -> str:
    """Decodes HTML character references: the named ones mails use, and every numeric one."""

    def decode(reference: Match[str]) -> str:
        name = reference.group(1)
        if name[0] == "#":
            digits = name[2:] if name[1] in "xX" else name[1:]
            # A reference too long to be a code point is left as it is (Python refuses to read past 4,300 digits).
            code = int(digits, 16 if name[1] in "xX" else 10) if len(digits) <= 16 else 0
            return chr(code) if 0 < code <= 0x10FFFF else reference.group(0)
        return _NAMED.get(name.lower(), reference.group(0))

    return _ENTITY.sub(decode, text)


def html_to_text(html: str) -> str:
    """The readable text of an HTML body: blocks become lines, tags go, entities are decoded."""
    text = _HIDDEN.sub(" ", html)
    text = _COMMENT.sub(" ", text)
    text = _BREAK.sub("\n", text)
    text = _BLOCK.sub("\n", text)
    text = _CELL_END.sub(" ", text)
    text = decode_entities(_TAG.sub("", text))
    lines = (trim(_RUN_OF_SPACES.sub(" ", line)) for line in text.split("\n"))
    return "\n".join(line for line in lines if line != "")
