"""Verification codes and action links out of a message, by the TypeScript client's rules."""

import re
import unicodedata
from typing import List, Mapping, NamedTuple, Optional

from ._js_text import NOT_SPACE, SPACE, SPACE_CHARS, WORD_END, WORD_START, last_index_of, trim
from .html_text import decode_entities, html_to_text

#: The parts of a message extraction reads: ``subject``, ``text`` and ``html`` (a ``Message`` is one).
ExtractableMessage = Mapping[str, object]

# JavaScript's \b under the `iu` flags also counts ſ and K (which fold to ASCII letters) as word characters.
_IU_WORD = "A-Za-z0-9_\u017f\u212a"
#: Words that announce a code, in the languages sign-up mails are commonly written in.
_CODE_WORDS = re.compile(
    rf"(?<![{_IU_WORD}])(code|codes|otp|pin|passcode|one[- ]time|verification|verify|security|token|c[oó]digo|code de"
    rf"|bestätigungscode|sicherheitscode|kod[a-z]*|codice|verificatiecode|c[oó]d)(?![{_IU_WORD}])"
    r"|код|验证码|驗證碼|确认码|認証コード|確認コード|コード|인증|코드|рin",
    re.IGNORECASE,
)
#: Words that make a number something other than a code.
_NOT_CODE_WORDS = re.compile(
    r"(\$|€|£|¥|usd|eur|order|invoice|rechnung|commande|pedido|заказ|tel|phone|fax|ref(erence)?|ticket|account ending|год|year)"
    rf"{SPACE}*[#:№]?{SPACE}*\Z",
    re.IGNORECASE,
)
# A candidate, not preceded by a letter, a digit or one of -_./:@#, nor followed by a letter, a digit
# or one of _/@%; JavaScript's "nor by one of .,:- and a digit" is `_ends_before_a_number`.
_CANDIDATE = re.compile(
    r"(?<![\w\-./:@#])([0-9]{3}[ -][0-9]{3}|[0-9]{4,8}|(?=[A-Z0-9]*[0-9])(?=[A-Z0-9]*[A-Z])[A-Z0-9]{6,10})(?![\w/@%])"
)
_LINK_IN_TEXT = re.compile(rf"https?://{NOT_SPACE}+")
_YEAR = re.compile(r"(19|20)[0-9][0-9]\Z")


class _Scored(NamedTuple):
    code: str
    score: int
    order: int


def extract_codes(message: ExtractableMessage) -> List[str]:
    """
    The verification codes of a message, most likely first: 4 to 8 digits (also written ``123 456``
    or ``123-456``) or 6 to 10 capital letters and digits, preferred when the line or the line
    before names a code (in English, German, French, Spanish, Portuguese, Italian, Dutch, Polish,
    Turkish, Russian, Chinese, Japanese or Korean), or when the code stands alone on its line.
    Numbers inside links, addresses, dates, times, prices and order numbers are not codes. Reads
    ``text`` and the subject; an HTML-only mail is read from its sanitized HTML.
    """
    lines = [_LINK_IN_TEXT.sub(" ", line) for line in [_text(message, "subject"), *_readable_text(message).split("\n")]]
    scored: List[_Scored] = []
    for index, line in enumerate(lines):
        for candidate in _CANDIDATE.finditer(line):
            value = candidate.group(0)
            if _ends_before_a_number(line, candidate.end()) or _NOT_CODE_WORDS.search(line[: candidate.start()]):
                continue
            if _YEAR.match(value):
                continue  # a year
            score = 0
            if _CODE_WORDS.search(line) or (index > 0 and _CODE_WORDS.search(lines[index - 1])):
                score += 2
            if trim(line) == value:
                score += 2
            if value[0].isdigit() or "-" in value or " " in value:
                score += 1
            if score < 2:
                continue
            scored.append(_Scored(value.replace(" ", "").replace("-", ""), score, len(scored)))
    best = sorted(scored, key=lambda entry: (-entry.score, entry.order))
    return list(dict.fromkeys(entry.code for entry in best))


def extract_code(message: ExtractableMessage) -> Optional[str]:
    """The most likely verification code, or None."""
    codes = extract_codes(message)
    return codes[0] if codes else None


#: Words of the links a test wants: confirmation, activation, reset, sign-in.
_ACTION_WORDS = re.compile(
    r"verif|confirm|activat|reset|password|passwort|magic|login|log in|sign[ -]?in|signin|sign[ -]?up|token|invite|bestätig"
    r"|aktivier|anmeld|confirmer|vérifi|activer|connexion|confirmar|verificar|activar|restablecer|iniciar|accedi|conferma"
    r"|attiva|bevestig|potwierd|aktywuj|doğrula|onayla|подтвер|актив|войти|确认|確認|验证|認証|ログイン|登录|인증",
    re.IGNORECASE,
)
#: Links a test never wants.
_CHROME_WORDS = re.compile(
    r"unsubscribe|abmelden|désabonner|desuscrib|darse de baja|privacy|datenschutz|terms|help|support|preferences"
    r"|view (it )?in (your )?browser|mailto:|tel:",
    re.IGNORECASE,
)
_ANCHOR = re.compile(
    rf"<a{WORD_END}[^>]*?{WORD_START}href{SPACE}*={SPACE}*(\"([^\"]*)\"|'([^']*)'|([^{SPACE_CHARS}>]+))[^>]*>([\s\S]*?)</a{SPACE}*>",
    re.IGNORECASE | re.ASCII,
)
_URL_IN_TEXT = re.compile(rf"https?://[^{SPACE_CHARS}<>\"'()\[\]{{}}]+")
_TRAILING_PUNCTUATION = re.compile(r"[.,;:!?]+\Z")
_HTTP = re.compile(r"https?://", re.IGNORECASE)
_LETTER_OR_DIGIT = re.compile(r"[^\W_]")


def extract_links(message: ExtractableMessage) -> List[str]:
    """
    The links of a message, the likely action first (verify, confirm, reset, sign in, in several
    languages, by the link's text or its address), then the others; unsubscribe, privacy, help
    and ``mailto:`` links are left out. ``href``s are entity-decoded (``&amp;`` becomes ``&``); a
    tracking redirect is returned as it is, since following it is what a reader does.
    """
    found: List[_Link] = []
    for anchor in _ANCHOR.finditer(_text(message, "html")):
        href = next((group for group in anchor.group(2, 3, 4) if group is not None), "")
        found.append(_Link(decode_entities(trim(href)), html_to_text(anchor.group(5))))
    text = _text(message, "text")
    for match in _URL_IN_TEXT.finditer(text):
        url = _TRAILING_PUNCTUATION.sub("", match.group(0))
        line_start = last_index_of(text, "\n", match.start() - 1) + 1
        label = text[line_start : match.start()]
        # A link on a line of its own (or in brackets after its text, as HTML-to-text writes it) is labelled by the line before.
        if not _LETTER_OR_DIGIT.search(label):
            label = text[last_index_of(text, "\n", line_start - 2) + 1 : match.start()]
        found.append(_Link(url, label))
    links = [link for link in found if _HTTP.match(link.url) and not _CHROME_WORDS.search(link.url) and not _CHROME_WORDS.search(link.label)]
    actions = [link for link in links if _ACTION_WORDS.search(link.label) or _ACTION_WORDS.search(link.url)]
    return list(dict.fromkeys(link.url for link in [*actions, *links]))


def extract_link(message: ExtractableMessage) -> Optional[str]:
    """The most likely action link, or None."""
    links = extract_links(message)
    return links[0] if links else None


class _Link(NamedTuple):
    url: str
    label: str


def _ends_before_a_number(line: str, end: int) -> bool:
    """Whether one of ``.,:-`` and then a number (any Unicode number) follows: ``12.5``, ``10:30``, ``2026-05``."""
    return end + 1 < len(line) and line[end] in ".,:-" and unicodedata.category(line[end + 1]).startswith("N")


def _text(message: ExtractableMessage, field: str) -> str:
    value = message.get(field)
    return value if isinstance(value, str) else ""


def _readable_text(message: ExtractableMessage) -> str:
    text = _text(message, "text")
    return text if trim(text) != "" else html_to_text(_text(message, "html"))
