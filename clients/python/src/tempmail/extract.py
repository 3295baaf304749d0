"""Verification codes and action links out of a message, by the TypeScript client's rules."""

import bisect
import re
import unicodedata
from typing import Dict, List, Mapping, Match, NamedTuple, Optional, Tuple

from ._js_text import NOT_SPACE, SPACE, SPACE_CHARS, WORD_END, WORD_START, SPACE_SET, trim
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
#: Words that make a number something other than a code, when they end the text before it (less
#: spaces, one of ``#:№``, and spaces): tested on the 14 characters before those, the longest word.
_NOT_CODE_WORDS = re.compile(
    r"(\$|€|£|¥|usd|eur|order|invoice|rechnung|commande|pedido|заказ|tel|phone|fax|ref(erence)?|ticket|account ending|год|year)\Z",
    re.IGNORECASE,
)
_LONGEST_NOT_CODE_WORD = len("account ending")
#: The characters of each field extraction reads, the TypeScript client's ``MAX_EXTRACT_CHARS``:
#: a mail's text past them (a hostile 40 MB line) is not read. Everything extraction does is linear
#: in what it reads, so this bounds its time.
MAX_EXTRACTED_CHARS = 1024 * 1024
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
    ``text`` and the subject; an HTML-only mail is read from its sanitized HTML. Reads the first
    ``MAX_EXTRACTED_CHARS`` characters of each, in time linear in what it reads.
    """
    lines = [_LINK_IN_TEXT.sub(" ", line) for line in [_text(message, "subject"), *_readable_text(message).split("\n")]]
    # What each candidate asks of its line is worked out once per line, not once per candidate.
    names_a_code = [_CODE_WORDS.search(line) is not None for line in lines]
    scored: List[_Scored] = []
    for index, line in enumerate(lines):
        trimmed = trim(line)
        for candidate in _CANDIDATE.finditer(line):
            value = candidate.group(0)
            if _ends_before_a_number(line, candidate.end()) or _follows_a_not_code_word(line, candidate.start()):
                continue
            if _YEAR.match(value):
                continue  # a year
            score = 0
            if names_a_code[index] or (index > 0 and names_a_code[index - 1]):
                score += 2
            if trimmed == value:
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
_OPENING_A = re.compile(
    rf"<a{WORD_END}[^>]*?{WORD_START}href{SPACE}*={SPACE}*(\"([^\"]*)\"|'([^']*)'|([^{SPACE_CHARS}>]+))[^>]*>", re.IGNORECASE | re.ASCII
)
_NEWLINE = re.compile("\n")
_A_START = re.compile(rf"<a{WORD_END}", re.IGNORECASE | re.ASCII)
_CLOSING_A = re.compile(rf"</a{SPACE}*>", re.IGNORECASE | re.ASCII)
_URL_IN_TEXT = re.compile(rf"https?://[^{SPACE_CHARS}<>\"'()\[\]{{}}]+")
#: Longer than any match of the chrome and action words ("view it in your browser" is 23).
_LONGEST_LABEL_WORD = 32
_HTTP = re.compile(r"https?://", re.IGNORECASE)
_LETTER_OR_DIGIT = re.compile(r"[^\W_]")


def extract_links(message: ExtractableMessage) -> List[str]:
    """
    The links of a message, the likely action first (verify, confirm, reset, sign in, in several
    languages, by the link's text or its address), then the others; unsubscribe, privacy, help
    and ``mailto:`` links are left out. ``href``s are entity-decoded (``&amp;`` becomes ``&``); a
    tracking redirect is returned as it is, since following it is what a reader does. Reads the
    first ``MAX_EXTRACTED_CHARS`` characters of ``text`` and ``html``.
    """
    found: List[_Link] = [*_anchors(_text(message, "html")), *_links_in_text(_text(message, "text"))]
    links = [link for link in found if _HTTP.match(link.url) and not _CHROME_WORDS.search(link.url) and not link.chrome]
    actions = [link for link in links if link.action or _ACTION_WORDS.search(link.url)]
    return list(dict.fromkeys(link.url for link in [*actions, *links]))


def _anchors(html: str) -> List["_Link"]:
    """
    The ``<a href>`` elements, as JavaScript's ``/<a\\b[^>]*?\\bhref=…>([\\s\\S]*?)<\\/a\\s*>/gi``
    finds them, without its quadratic time on a mail of many ``<a`` and no ``</a>``: the element's
    end is looked up among the closing tags, found once; an opening tag that no closing tag
    follows ends the search, since none can follow a later one either.
    """
    closings = [(closing.start(), closing.end()) for closing in _CLOSING_A.finditer(html)]
    starts = [start for start, _ in closings]
    found: List[_Link] = []
    position = 0
    while True:
        opening = _next_opening(html, position)
        if opening is None:
            return found
        at = bisect.bisect_left(starts, opening.end())
        if at == len(starts):
            if not starts or starts[-1] < opening.start():
                return found
            # A closing tag inside the opening tag's quoted href: only the whole pattern knows the answer.
            anchor = _ANCHOR.match(html, opening.start())
            if anchor is None:
                position = opening.start() + 1
                continue
            href_groups, body, position = anchor.group(2, 3, 4), anchor.group(5), anchor.end()
        else:
            href_groups, body, position = opening.group(2, 3, 4), html[opening.end() : closings[at][0]], closings[at][1]
        href = next((group for group in href_groups if group is not None), "")
        label = html_to_text(body)
        found.append(_Link(decode_entities(trim(href)), _CHROME_WORDS.search(label) is not None, _ACTION_WORDS.search(label) is not None))


def _next_opening(html: str, position: int) -> Optional[Match[str]]:
    """
    The next opening ``<a … href=…>`` at or after ``position``. Where one fails to match, so does
    every ``<a`` after it up to the next ``>``: it tried every place for ``href`` that they can.
    """
    while True:
        start = _A_START.search(html, position)
        if start is None:
            return None
        opening = _OPENING_A.match(html, start.start())
        if opening is not None:
            return opening
        tag_end = html.find(">", start.start())
        if tag_end < 0:
            return None
        position = max(tag_end, start.start() + 1)


def _links_in_text(text: str) -> List["_Link"]:
    """
    The ``http(s)`` links of plain text, each labelled by its line before it (or, when that holds
    no letter or digit, by the line before too). Labels grow along a line, so what a label holds
    is carried from the line's previous link and only the new part is read: linear in the text.
    """
    found: List[_Link] = []
    #: Per label start: where the read part ends, and whether it holds a letter or digit, a chrome word, an action word.
    read: Dict[int, Tuple[int, bool, bool, bool]] = {}

    def label_at(start: int, end: int) -> Tuple[bool, bool, bool]:
        until, letter, chrome, action = read.get(start, (start, False, False, False))
        if end > until:
            # A word may begin in the part already read: re-read as much of it as the longest word.
            resume = max(start, until - _LONGEST_LABEL_WORD)
            letter = letter or _LETTER_OR_DIGIT.search(text, until, end) is not None
            chrome = chrome or _CHROME_WORDS.search(text, resume, end) is not None
            action = action or _ACTION_WORDS.search(text, resume, end) is not None
            read[start] = (end, letter, chrome, action)
        return letter, chrome, action

    breaks = [newline.start() for newline in _NEWLINE.finditer(text)]

    def line_start_at(position: int) -> int:
        """``text.lastIndexOf("\\n", position - 1) + 1``, without reading back along a long line."""
        return breaks[at - 1] + 1 if (at := bisect.bisect_right(breaks, max(position - 1, 0))) > 0 else 0

    for match in _URL_IN_TEXT.finditer(text):
        url = match.group(0).rstrip(".,;:!?")
        line_start = line_start_at(match.start())
        letter, chrome, action = label_at(line_start, match.start())
        # A link on a line of its own (or in brackets after its text, as HTML-to-text writes it) is labelled by the line before.
        if not letter:
            _, chrome, action = label_at(line_start_at(line_start - 1), match.start())
        found.append(_Link(url, chrome, action))
    return found


def extract_link(message: ExtractableMessage) -> Optional[str]:
    """The most likely action link, or None."""
    links = extract_links(message)
    return links[0] if links else None


class _Link(NamedTuple):
    url: str
    #: Whether the link's label holds a chrome word (unsubscribe, privacy…) or an action word (verify, reset…).
    chrome: bool
    action: bool


def _follows_a_not_code_word(line: str, start: int) -> bool:
    """
    Whether the text before ``start`` ends in a word that makes a number no code (``Order #``,
    ``Tel:``): JavaScript's ``/(words)\\s*[#:№]?\\s*$/`` on the text before, without searching the whole of it.
    """
    end = start
    while end > 0 and line[end - 1] in SPACE_SET:
        end -= 1
    if end > 0 and line[end - 1] in "#:№":
        end -= 1
        while end > 0 and line[end - 1] in SPACE_SET:
            end -= 1
    return _NOT_CODE_WORDS.search(line[max(0, end - _LONGEST_NOT_CODE_WORD) : end]) is not None


def _ends_before_a_number(line: str, end: int) -> bool:
    """Whether one of ``.,:-`` and then a number (any Unicode number) follows: ``12.5``, ``10:30``, ``2026-05``."""
    return end + 1 < len(line) and line[end] in ".,:-" and unicodedata.category(line[end + 1]).startswith("N")


def _text(message: ExtractableMessage, field: str) -> str:
    value = message.get(field)
    return value[:MAX_EXTRACTED_CHARS] if isinstance(value, str) else ""


def _readable_text(message: ExtractableMessage) -> str:
    text = _text(message, "text")
    return text if trim(text) != "" else html_to_text(_text(message, "html"))
