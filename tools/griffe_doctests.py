r"""A Griffe extension for the API reference (``mkdocs.yml``, mkdocstrings).

The docstrings are written for ``help()`` and doctest: their examples are
bare ``>>>`` paragraphs and their cross-references Sphinx roles
(``:func:`solve```).  For the site each example becomes a fenced Python
console block (so ``['c1-c5']`` in an answer is not read as a Markdown
link) and each role its name in code.

>>> site_docstring("Solves.\n\n>>> solve(1)\n['a']\n\nSee :func:`search`.").split("\n")
['Solves.', '', '```pycon', '>>> solve(1)', "['a']", '```', '', 'See `search`.']
"""

from __future__ import annotations

import re
from typing import Any

import griffe

#: A Sphinx role: ``:func:`name```, ``:class:`~a.b.C```.
ROLE = re.compile(r":(?:py:)?[a-z]+:`~?([^`]+)`")


def site_docstring(text: str) -> str:
    """``text`` with its doctest paragraphs fenced and its roles as code."""
    out: list[str] = []
    in_example = False
    for line in text.split("\n"):
        stripped = line.strip()
        if not in_example and (stripped.startswith(">>> ") or stripped == ">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            out.append(f"{indent}```pycon")
            in_example = True
        elif in_example and not stripped:
            out.append(f"{indent}```")
            in_example = False
        out.append(line if in_example else ROLE.sub(r"`\1`", line))
    if in_example:
        out.append(f"{indent}```")
    return "\n".join(out)


class DoctestFences(griffe.Extension):
    """Fences every docstring's examples and turns its roles into code."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Rewrite ``obj``'s docstring, once the tree is complete."""
        if obj.docstring is not None and not getattr(obj.docstring, "_site", False):
            obj.docstring.value = site_docstring(obj.docstring.value)
            obj.docstring._site = True  # type: ignore[attr-defined]
