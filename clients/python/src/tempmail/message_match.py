"""The tests a wanted message passes: one value, shared by every wait of the client and the inbox."""

from dataclasses import dataclass
from typing import Callable, Optional, Pattern, Union

from .resources import Message

#: A text test: a substring (case-insensitive) or a compiled regular expression (tested with ``search``).
TextMatcher = Union[str, Pattern[str]]


@dataclass(frozen=True)
class MessageMatch:
    """The tests a wanted message passes; every one given must pass."""

    #: Tested against the whole ``from`` display text (name and address).
    from_: Optional[TextMatcher] = None
    #: Passes when any recipient passes.
    to: Optional[TextMatcher] = None
    subject: Optional[TextMatcher] = None
    #: Tested against ``text`` and sanitized ``html``; needs the whole message (one charged read per candidate).
    body: Optional[TextMatcher] = None
    #: Any further test on the whole message.
    where: Optional[Callable[[Message], bool]] = None
