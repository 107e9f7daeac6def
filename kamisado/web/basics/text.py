"""Text the database cannot hold, refused where it comes in.

JSON may carry strings that no database here can store: a lone surrogate
(``"\\ud800"``: no UTF-8 encodes it, so neither SQLite's driver nor
PostgreSQL takes it) and the NUL character (PostgreSQL's text refuses it).
Such text is bad input, not a database failure: every JSON body and
websocket frame is checked once, as it is read, and refused with the field
named (400 over HTTP, a ``malformed`` error frame on the websocket), so it
never reaches the store as a 500 or a 503 "try again".

>>> unstorable({"type": "create", "black_name": "Ann", "gold_name": "B\\x00o"})
'gold_name'
>>> unstorable({"clock": {"initial": 300}, "names": ["ok", "\\ud800"]})
'names[1]'
>>> unstorable({"name": "Ann 🐉"}) is None
True
>>> unstorable({"\\x00": 1})  # a key too, written so that it can be shown
'\\\\u0000'
>>> check_storable({"account": "\\ud83d"}, "signup")
Traceback (most recent call last):
...
kamisado.web.basics.text.UnstorableText: signup: account holds a lone surrogate (\\ud83d), which is not text
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["UnstorableText", "check_storable", "unstorable", "unstorable_char"]

#: A character no store here can hold: NUL, or a lone (unpaired) surrogate
#: (a string from JSON holds a pair as one character, never as two).
_BAD = re.compile("[\x00\ud800-\udfff]")


class UnstorableText(ValueError):
    """A field holds text the store cannot hold; ``field`` names it."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


def unstorable_char(text: str) -> str | None:
    """The first character of ``text`` no store can hold, or ``None``.

    >>> unstorable_char("a\\x00b"), unstorable_char("fine"), unstorable_char("\\udc00")
    ('\\x00', None, '\\udc00')
    """
    found = _BAD.search(text)
    return None if found is None else found.group()


def _walk(value: Any, path: str, depth: int = 0) -> tuple[str, str] | None:
    """The first (field, text) whose text no store can hold."""
    if isinstance(value, str):
        return (path, value) if _BAD.search(value) else None
    if depth > 64:  # JSON nested deeper is refused by the parsers' callers anyway
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            name = _BAD.sub(lambda m: f"\\u{ord(m.group()):04x}", str(key))  # shown, never sent raw
            here = f"{path}.{name}" if path else name
            if isinstance(key, str) and _BAD.search(key):
                return here, key
            found = _walk(item, here, depth + 1)
            if found is not None:
                return found
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found = _walk(item, f"{path}[{i}]", depth + 1)
            if found is not None:
                return found
    return None


def unstorable(value: Any) -> str | None:
    """The first field (a path: ``gold_name``, ``clock.days``, ``names[1]``)
    of a JSON value whose text (or key) the store cannot hold, or ``None``."""
    found = _walk(value, "")
    return None if found is None else found[0]


def describe(text: str) -> str:
    """What is wrong with a piece of text, in words.

    >>> describe("a\\x00"), describe("\\ud800")
    ('holds a NUL character', 'holds a lone surrogate (\\\\ud800), which is not text')
    """
    char = unstorable_char(text)
    if char == "\x00":
        return "holds a NUL character"
    return f"holds a lone surrogate (\\u{ord(char or ' '):04x}), which is not text"


def check_storable(value: Any, what: str) -> None:
    """Raise :class:`UnstorableText` naming the first field of ``value`` (a
    parsed JSON body or frame, for the request or message ``what``) whose
    text the store cannot hold."""
    found = _walk(value, "")
    if found is not None:
        field, text = found
        raise UnstorableText(f"{what}: {field} {describe(text)}", field)
