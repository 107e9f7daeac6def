"""The examples of README.md and docs/*.md, run and compared with what they show.

Every fenced block of those pages has a tag, and the tag says what is checked:

* ```` ```console ````: a shell session.  A line starting with ``$ `` is a
  command (a line ending in ``\\`` goes on in the next); the lines up to the
  next command are what it prints, standard output and error together.
  ``kamisado`` and ``python`` are this checkout's (the current interpreter),
  and each block runs in a fresh empty folder.
* ```` ```kei ````: a session with ``kamisado engine`` (or the engine command
  on a first ``$ `` line): ``> `` lines are sent to the engine, ``< `` lines
  are what it answers, in order.  Each line is sent once every answer above
  it has come.
* ```` ```python ````: a doctest (``>>>``).  README.md's run through
  pyproject's ``--doctest-glob``, those of docs/*.md here.
* ```` ```LANG file=NAME ````: the block's text is the file NAME in the folder
  where the page's sessions and doctests run (a record that
  ``kamisado replay`` reads, an engine that a tournament starts).
* ```` ```pycon ````: a Python session against a site: docs/bots.md's, run
  by tests/test_api_client.py against a server it starts.
* anything else (``sh``, ``text``, ``nginx``, ``json``...) is shown, never
  run: installing, starting a server, a format's grammar.

In what a session shows, ``...`` stands for any text within a line, and a
line that is only ``...`` for any number of lines (doctest's ELLIPSIS): use it
where a number may vary (times, nodes a second, a search cut by the clock).

The pages' relative links must lead to files that exist, and a link's
``#anchor`` to a heading of that page.
"""

from __future__ import annotations

import doctest
import io
import os
import queue
import re
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: Tags of blocks that are shown and never run.
SHOWN = {"sh", "text", "nginx", "json", "ini", "sql", "js", "html", "ebnf", "c"}
COMMAND_TIMEOUT = 60.0  # seconds, for one command or one answer of an engine


@dataclass
class Block:
    page: Path
    line: int  # the line of the opening fence, from 1
    tag: str
    options: dict[str, str]
    text: str

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def read_blocks(page: Path) -> list[Block]:
    blocks: list[Block] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)```(.*)$", lines[i])
        if not m:
            i += 1
            continue
        indent, info = m.group(1), m.group(2).split()
        start = i
        body: list[str] = []
        i += 1
        while i < len(lines) and lines[i].strip() != "```":
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
            i += 1
        if i == len(lines):
            raise AssertionError(f"{page.relative_to(ROOT)}:{start + 1}: the block never ends")
        i += 1
        options = dict(word.split("=", 1) for word in info[1:] if "=" in word)
        text = "\n".join(body) + "\n"
        blocks.append(Block(page, start + 1, info[0] if info else "", options, text))
    return blocks


BLOCKS = [b for page in PAGES for b in read_blocks(page)]


def blocks_of(tag: str) -> list[Block]:
    return [b for b in BLOCKS if b.tag == tag and "file" not in b.options]


# -- matching ------------------------------------------------------------------


def line_pattern(expected: str) -> re.Pattern[str]:
    """``...`` in a line stands for any text."""
    return re.compile(".*".join(re.escape(part) for part in expected.split("...")))


def matches(expected: list[str], got: list[str]) -> bool:
    """Whether the lines got fit the lines expected (a line ``...``: any lines)."""
    pattern = "".join(
        r"(?:[^\n]*\n)*?" if line.strip() == "..." else line_pattern(line.rstrip()).pattern + r"\n"
        for line in expected
    )
    text = "".join(line.rstrip() + "\n" for line in got)
    return re.fullmatch(pattern, text) is not None


def strip_blank_ends(lines: list[str]) -> list[str]:
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return lines


# -- running -------------------------------------------------------------------


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A fresh folder with ``kamisado`` and ``python`` on PATH."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for name, args in (("kamisado", '-m kamisado.cli "$@"'), ("python", '"$@"'), ("python3", '"$@"')):
        script = bindir / name
        script.write_text(f'#!/bin/sh\nexec "{sys.executable}" {args}\n')
        script.chmod(0o755)
    work = tmp_path / "work"
    work.mkdir()
    return work


def environment(work: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{work.parent / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.pop("COLUMNS", None)
    env["NO_COLOR"] = "1"
    return env


def write_files(page: Path, work: Path) -> None:
    """The page's ``file=NAME`` blocks, as files in the working folder."""
    for block in BLOCKS:
        if block.page == page and "file" in block.options:
            path = work / block.options["file"]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(block.text, encoding="utf-8")


def engine_blocks_skip(text: str) -> None:
    """The engine's examples were made with the compiled core: skip them on the other."""
    from kamisado import engine

    if engine.BACKEND != "compiled" and re.search(
        r"kamisado (engine|solve|best|analyse|tournament)|go |engine\.", text
    ):
        pytest.skip("the example was made with the compiled engine core")


def parse_console(text: str) -> list[tuple[str, list[str]]]:
    """``[(command, expected lines)]``."""
    steps: list[tuple[str, list[str]]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("$ "):
            raise AssertionError(f"expected a '$ ' command, found {line!r}")
        command = line[2:]
        while command.endswith("\\") and i + 1 < len(lines):
            i += 1
            command = command[:-1] + " " + lines[i].strip()
        i += 1
        out: list[str] = []
        while i < len(lines) and not lines[i].startswith("$ "):
            out.append(lines[i])
            i += 1
        steps.append((command, strip_blank_ends(out)))
    return steps


@pytest.mark.parametrize("block", blocks_of("console"), ids=lambda b: b.where)
def test_console_session(block: Block, folder: Path) -> None:
    engine_blocks_skip(block.text)
    write_files(block.page, folder)
    for command, expected in parse_console(block.text):
        done = subprocess.run(
            command,
            shell=True,
            executable="/bin/bash",
            cwd=folder,
            env=environment(folder),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=COMMAND_TIMEOUT,
        )
        got = strip_blank_ends(done.stdout.splitlines())
        assert matches(expected, got), (
            f"{block.where}: $ {command}\n--- the page shows\n" + "\n".join(expected)
            + f"\n--- it printed (exit status {done.returncode})\n" + "\n".join(got)
        )


def parse_kei(text: str) -> tuple[str, list[tuple[str, str]]]:
    """The engine command and ``[(kind, text)]``, kind ``>``, ``<`` or ``...``."""
    lines = text.splitlines()
    command = "kamisado engine"
    if lines and lines[0].startswith("$ "):
        command, lines = lines[0][2:], lines[1:]
    steps: list[tuple[str, str]] = []
    for line in lines:
        if line.strip() == "...":
            steps.append(("...", ""))
        elif line.startswith(("> ", "< ")):
            steps.append((line[0], line[2:].rstrip()))
        else:
            raise AssertionError(f"expected a '> ', '< ' or '...' line, found {line!r}")
    return command, steps


@pytest.mark.parametrize("block", blocks_of("kei"), ids=lambda b: b.where)
def test_kei_session(block: Block, folder: Path) -> None:
    engine_blocks_skip("kamisado engine")
    write_files(block.page, folder)
    command, steps = parse_kei(block.text)
    err = open(folder / "engine.err", "w+")  # noqa: SIM115
    proc = subprocess.Popen(
        command,
        shell=True,
        executable="/bin/bash",
        cwd=folder,
        env=environment(folder),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=err,
        text=True,
        bufsize=1,
    )
    assert proc.stdin is not None and proc.stdout is not None
    lines: queue.Queue[str | None] = queue.Queue()

    def read(stream: io.TextIOBase) -> None:
        for line in stream:
            lines.put(line.rstrip("\n"))
        lines.put(None)

    threading.Thread(target=read, args=(proc.stdout,), daemon=True).start()
    transcript: list[str] = []

    def fail(why: str) -> None:
        err.seek(0)
        pytest.fail(
            f"{block.where}: {why}\n--- the session so far\n" + "\n".join(transcript)
            + "\n--- the engine's standard error\n" + err.read()
        )

    def next_line() -> str | None:
        try:
            line = lines.get(timeout=COMMAND_TIMEOUT)
        except queue.Empty:
            fail(f"no answer in {COMMAND_TIMEOUT:.0f} s")
        if line is not None:
            transcript.append("< " + line)
        return line

    try:
        skipping = False
        for kind, text in steps:
            if kind == "...":
                skipping = True
            elif kind == ">":
                transcript.append("> " + text)
                proc.stdin.write(text + "\n")
                proc.stdin.flush()
            else:
                pattern = line_pattern(text)
                while True:
                    line = next_line()
                    if line is None:
                        fail(f"the engine ended before {text!r}")
                    assert line is not None
                    if pattern.fullmatch(line.rstrip()):
                        break
                    if not skipping:
                        fail(f"expected {text!r}")
                skipping = False
        proc.stdin.close()
        proc.wait(timeout=COMMAND_TIMEOUT)
        rest = []
        while (line := next_line()) is not None:
            rest.append(line)
        if rest and not skipping:
            fail(f"more answers than the page shows: {rest}")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        err.close()


# -- Python ----------------------------------------------------------------------

DOCTEST_PAGES = sorted({b.page for b in blocks_of("python") if b.page.parent.name == "docs"})


@pytest.mark.parametrize("page", DOCTEST_PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_python_examples(page: Path, folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine_blocks_skip(page.read_text("utf-8"))
    write_files(page, folder)
    monkeypatch.chdir(folder)
    for key, value in environment(folder).items():
        monkeypatch.setenv(key, value)
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    out = io.StringIO()
    globs: dict[str, object] = {}  # the page's blocks share their names, as one doctest
    for block in blocks_of("python"):
        if block.page == page:
            test = parser.get_doctest(block.text, globs, page.name, str(page), block.line)
            runner.run(test, out=out.write, clear_globs=False)
            globs = test.globs  # a DocTest runs in a copy of the names it is given
    result = runner.summarize(verbose=False)
    assert result.failed == 0, out.getvalue()
    assert result.attempted > 0


def test_every_block_says_what_it_is() -> None:
    """No untagged block, no session hidden in a block that is not run."""
    problems = []
    for block in BLOCKS:
        if "file" in block.options:
            continue
        known = {"console", "kei", "python", "pycon"} | SHOWN
        if block.tag not in known:
            problems.append(f"{block.where}: tag {block.tag!r} (expected one of {sorted(known)})")
        lines = block.text.splitlines()
        if block.tag != "console" and block.tag != "kei" and any(x.startswith("$ ") for x in lines):
            problems.append(f"{block.where}: a '$ ' session in a {block.tag!r} block is never run")
        if block.tag == "python" and not any(x.lstrip().startswith(">>> ") for x in lines):
            problems.append(f"{block.where}: a python block that is not a doctest is never run")
    assert not problems, "\n".join(problems)


# -- links -----------------------------------------------------------------------


def slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    text = re.sub(r"[`*_]|<[^>]+>", lambda m: "_" if m.group() == "_" else "", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    in_block = False
    for line in page.read_text("utf-8").splitlines():
        if line.lstrip().startswith("```"):
            in_block = not in_block
            continue
        m = None if in_block else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            base = slug(m.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            out.add(base if n == 0 else f"{base}-{n}")
    return out


def links(page: Path) -> list[tuple[int, str]]:
    out = []
    in_block = False
    for number, line in enumerate(page.read_text("utf-8").splitlines(), 1):
        if line.lstrip().startswith("```"):
            in_block = not in_block
            continue
        if in_block:
            continue
        line = re.sub(r"`[^`]*`", "", line)
        for m in re.finditer(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", line):
            out.append((number, m.group(1)))
    return out


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_links_resolve(page: Path) -> None:
    text = page.read_text("utf-8")
    assert "shared/rules" not in text, "the rules are docs/rules.md, not a folder a clone lacks"
    problems = []
    for number, target in links(page):
        if re.match(r"^[a-z]+:", target):
            continue  # http:, https:, mailto:
        path_text, _, anchor = target.partition("#")
        path = (page.parent / path_text).resolve() if path_text else page
        if not path.exists():
            problems.append(f"{page.relative_to(ROOT)}:{number}: {target}: no such file")
            continue
        if anchor and path.exists() and path.suffix == ".md" and anchor not in anchors(path):
            problems.append(f"{page.relative_to(ROOT)}:{number}: {target}: no such heading")
    assert not problems, "\n".join(problems)


def test_the_matcher() -> None:
    assert matches(["a ... c"], ["a b b c"])
    assert not matches(["a ... c"], ["a b b d"])
    assert matches(["x", "...", "z"], ["x", "z"])
    assert matches(["x", "...", "z"], ["x", "1", "2", "z"])
    assert not matches(["x", "z"], ["x", "1", "z"])
    assert matches(["x", "..."], ["x", "1"])


def test_named_tests_exist() -> None:
    """A test a page names (`test_...`) is defined in tests/, so the pointer still leads somewhere."""
    defined = {
        m.group(1)
        for path in (ROOT / "tests").glob("*.py")
        for m in re.finditer(r"^\s*def (test_\w+)", path.read_text("utf-8"), re.M)
    }
    missing = [
        f"{page.relative_to(ROOT)}: {name}"
        for page in PAGES
        for name in sorted(set(re.findall(r"`(test_\w+)`", page.read_text("utf-8"))))
        if name not in defined
    ]
    assert not missing, "\n".join(missing)


def test_ci_runs_the_readme_commands() -> None:
    """``.ci/run`` makes the venv as the README's first command does and runs its tests as its second."""
    readme = next(b for b in BLOCKS if b.page.name == "README.md" and "pytest" in b.text)
    first = next(b for b in BLOCKS if b.page.name == "README.md" and "kamisado web" in b.text)
    make_venv = first.text.split("&&")[0].strip()
    test_command = readme.text.strip().split("&&")[-1].strip()
    assert make_venv == "python3 -m venv .venv", make_venv
    assert test_command.startswith(".venv/bin/python -m pytest"), test_command
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text("utf-8").splitlines()]
    assert make_venv in ci, f".ci/run does not make the README's venv: {make_venv}"
    assert test_command in ci, f".ci/run does not run the README's tests: {test_command}"


@pytest.mark.parametrize("name", ["mkdocs_hooks", "griffe_doctests"])
def test_site_tools_examples(name: str) -> None:
    """The examples of the site's hooks (tools/, run by ``mkdocs build``) hold."""
    import importlib.util

    if name == "griffe_doctests":
        pytest.importorskip("griffe", reason="the docs extra: pip install -e '.[docs]'")
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
