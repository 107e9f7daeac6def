"""MkDocs hooks for the documentation site (``mkdocs.yml``: ``hooks``).

The pages are written for GitHub and for ``tests/test_docs.py``; two things
in them mean something else to MkDocs, and are changed on the way:

* A link to a file outside ``docs/`` (a test, a module, the README) leads
  nowhere in the site: it becomes its text, with the path in code when the
  text does not name it already.  A link to a file that does not exist is a
  warning, so ``mkdocs build --strict`` fails on it as on any broken link.
* A fence's words after its language (```` ```text file=standard.kmr ````:
  the file a page's sessions read, for tests/test_docs.py) are dropped.

>>> page = "See [the tests](../tests/test_docs.py#L1).\\n```text file=a.kmr\\n[x](../y)\\n```\\n"
>>> print(site_markdown(page, lambda path: "tests/test_docs.py"), end="")
See the tests (`tests/test_docs.py`).
```text
[x](../y)
```
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

log = logging.getLogger("mkdocs.plugins.kamisado")

#: A Markdown link whose target leaves the docs folder: ``[text](../path#anchor)``.
OUTSIDE = re.compile(r"\[(?P<text>[^\]]*)\]\((?P<path>\.\./[^)#\s]*)(?:#[^)\s]*)?\)")
#: A fence's opening or closing line: its indent, its language, any words after.
FENCE = re.compile(r"^(?P<head>\s*```[\w+-]*)(?P<rest>.*)$")


def site_markdown(markdown: str, name_of: Callable[[str], str]) -> str:
    """``markdown`` as the site shows it; ``name_of`` checks and names a path out of docs/."""

    def plain(m: re.Match[str]) -> str:
        text, name = m.group("text"), name_of(m.group("path"))
        return text if name in text else f"{text} (`{name}`)"

    out, in_block = [], False
    for line in markdown.split("\n"):
        fence = FENCE.match(line)
        if fence:
            out.append(fence.group("head") if not in_block else line)
            in_block = not in_block
        else:
            out.append(line if in_block else OUTSIDE.sub(plain, line))
    return "\n".join(out)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any, **_: Any) -> str:
    """The hook: the page's links out of ``docs/`` as text, each checked to lead to a file."""
    source = Path(page.file.abs_src_path).parent
    root = Path(config["docs_dir"]).resolve().parent

    def name_of(path: str) -> str:
        target = (source / path).resolve()
        if not target.exists():
            log.warning("%s: a link to %s, which does not exist", page.file.src_path, path)
        return str(target.relative_to(root))

    return site_markdown(markdown, name_of)
