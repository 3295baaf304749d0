"""The waits' arguments as two values: the one place that still reads the keyword form of earlier releases."""

from dataclasses import fields
from typing import Any, Mapping, Optional, Tuple

from .message_match import MessageMatch
from .wait_options import WaitOptions

MATCH_KEYWORDS = tuple(field.name for field in fields(MessageMatch))
OPTION_KEYWORDS = tuple(field.name for field in fields(WaitOptions))


def wait_arguments(
    wait: str, match: Optional[MessageMatch], options: Optional[WaitOptions], keywords: Mapping[str, Any]
) -> Tuple[MessageMatch, WaitOptions]:
    """
    A wait's ``MessageMatch`` and ``WaitOptions``: the values given, or built from keywords
    (``subject="verify", timeout=10``), the form the guide has shown since the first release, so
    that code written against it keeps working. A value and keywords of the same kind at once are
    a ``ValueError``; a keyword no wait knows is the ``TypeError`` Python gives for one.
    """
    unknown = [name for name in keywords if name not in MATCH_KEYWORDS and name not in OPTION_KEYWORDS]
    if unknown:
        raise TypeError(f"{wait}() got an unexpected keyword argument {unknown[0]!r}")
    match_keywords = {name: value for name, value in keywords.items() if name in MATCH_KEYWORDS}
    option_keywords = {name: value for name, value in keywords.items() if name in OPTION_KEYWORDS}
    return (
        _one_of(match, MessageMatch, match_keywords, "tests", MATCH_KEYWORDS),
        _one_of(options, WaitOptions, option_keywords, "options", OPTION_KEYWORDS),
    )


def _one_of(value: Any, kind: Any, keywords: Mapping[str, Any], what: str, names: Tuple[str, ...]) -> Any:
    if value is None:
        return kind(**keywords)
    if not isinstance(value, kind):
        raise TypeError(f"{'match' if kind is MessageMatch else 'options'} must be a {kind.__name__}, got {type(value).__name__}")
    if keywords:
        raise ValueError(f"Give the {what} as a {kind.__name__} or as keywords ({', '.join(names)}), not both")
    return value
