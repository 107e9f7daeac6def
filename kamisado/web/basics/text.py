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
import unicodedata
from typing import Any

__all__ = ["MAX_MARKS", "UnstorableText", "check_storable", "unseeable", "unstorable", "unstorable_char"]

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


# -- text a person can see -------------------------------------------------

#: The most combining marks (Mn, Me) one character may carry: enough for
#: any ordinary script (Vietnamese, Hebrew with points, Devanagari, a
#: keycap emoji: 1 or 2), not for a pile of 139 over one letter.
MAX_MARKS = 3

#: Bidi embedding, override and isolate controls (U+202A-U+202E,
#: U+2066-U+2069): each reorders the text after it until its end, so a name
#: or a line could show something else than it says.  The marks U+200E,
#: U+200F and U+061C pass: they reorder nothing beyond themselves, open no
#: scope that could run on, and mixed right-to-left text needs them.
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")

#: Categories that show nothing by themselves: separators, controls and
#: format characters (U+200B, U+FEFF, U+200D...), combining marks.
_UNSEEN = ("Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Mn", "Me", "Mc")

#: Letters and symbols that are blank all the same: the Hangul fillers and
#: the blank braille pattern.
_BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def _seen(char: str) -> bool:
    """Whether a character shows something by itself (unassigned and private
    use ones count: a newer emoji than this Python knows is one)."""
    return char not in _BLANK and unicodedata.category(char) not in _UNSEEN


def unseeable(text: str, what: str = "the text") -> str | None:
    """The rule ``text`` breaks as text a person can see, or ``None``.

    Chat lines, display names and account names need a visible character,
    hold no bidi control, and carry at most :data:`MAX_MARKS` combining
    marks on one character (format characters between marks do not start
    a new character).  ``what`` names the text in the first rule's words.

    >>> unseeable("\u200b", "a chat line")
    'a chat line needs a visible character'
    >>> unseeable("\ufeff \u2800"), unseeable("")
    ('the text needs a visible character', 'the text needs a visible character')
    >>> unseeable("abc\u202edef")
    'no bidi controls (U+202E found)'
    >>> unseeable("a" + "\u0301" * 139)
    'at most 3 combining marks on one character (U+0061 carries 139)'
    >>> unseeable("a\u0301\u200d\u0301\u0301\u0301")  # a joiner starts no new character
    'at most 3 combining marks on one character (U+0061 carries 4)'
    >>> [unseeable(t) for t in ("Zoe\u0308", "\u05e9\u05c1\u05b8", "\u0928\u092e\u0938\u094d\u0924\u0947",
    ...                         "\u6c49\u5b57", "\U0001f468\u200d\U0001f469\u200d\U0001f467", "\U0001f1ef\U0001f1f5",
    ...                         "\u05e2\u05d1\u05e8\u05d9\u05ea\u200f 42")]
    [None, None, None, None, None, None, None]
    """
    found = _BIDI.search(text)
    if found is not None:
        return f"no bidi controls (U+{ord(found.group()):04X} found)"
    base, marks = "", 0
    for char in text + "x":  # the last character's marks are counted at the "x"
        kind = unicodedata.category(char)
        if kind in ("Mn", "Me"):
            marks += 1
        elif kind != "Cf":
            if marks > MAX_MARKS:
                where = f"U+{ord(base):04X} carries {marks}" if base else f"{marks} at the start"
                return f"at most {MAX_MARKS} combining marks on one character ({where})"
            base, marks = char, 0
    if not any(_seen(char) for char in text):
        return f"{what} needs a visible character"
    return None
