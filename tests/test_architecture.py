"""The rooms of the package and which may use which (docs/architecture.md).

Every module of ``kamisado/`` is read (not imported) and each of its
imports, at the top or inside a function, is checked against the room it
belongs to: a room uses only the rooms inside it.  The rules use nothing
outside the standard library.  No module imports, however indirectly, one
that imports it back (imports under ``TYPE_CHECKING`` and inside functions
count): the one edge left out is the notebook hook.  The web wing's own
rooms (``kamisado/web/*/``) form layers the same way, and no folder grows
past a handful of modules.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "kamisado"

#: Each room and the rooms it may import (itself always allowed).  Order
#: from the inside out: rules, then the shared command-line helpers and the
#: pictures, the engine, the protocol, then the front ends.
ALLOWED: dict[str, set[str]] = {
    "rules": set(),
    "args": {"rules"},
    "pictures": {"rules"},
    "engine": {"rules", "args", "pictures"},
    "protocol": {"rules", "args", "pictures", "engine", "proving"},
    "lessons": {"rules", "engine"},
    "proving": {"rules", "args", "engine"},
    "tui": {"rules", "args", "pictures", "engine", "protocol", "lessons", "face", "proving"},
    "web": {"rules", "args", "pictures", "engine", "protocol", "lessons", "tui", "face", "proving"},
    "api": {"rules", "args", "engine", "protocol"},
    "cli": {"rules", "args", "pictures", "engine", "protocol", "lessons", "tui", "web", "api", "face", "proving"},
    "face": {"rules", "engine", "pictures", "protocol"},
}

#: Third-party packages each room may use (beyond the standard library).
THIRD_PARTY: dict[str, set[str]] = {
    "rules": set(),
    "args": set(),
    "pictures": {"PIL"},
    "engine": set(),
    "protocol": set(),
    "lessons": set(),
    "api": {"httpx2", "orjson"},
    "proving": {"sqlalchemy", "distributed"},
}

#: The one way outward: a position or match draws itself in a notebook
#: (``_repr_svg_``), importing the board picture only when asked, as
#: python-chess does.
EXCEPTIONS = {("rules", "pictures", "_repr_svg_")}


#: The web wing's rooms (``kamisado/web/<room>/``) and the rooms each may
#: import (itself always allowed); ``top`` is ``kamisado/web/__init__.py``
#: (``kamisado web``'s command line), which may use them all.
WEB_ALLOWED: dict[str, set[str]] = {
    "basics": set(),
    "store": {"basics"},
    "work": {"basics"},
    "edge": {"basics"},
    "accounts": {"basics", "store"},
    "play": {"basics", "store", "work"},
    "community": {"basics", "store", "play"},
    "bots": {"basics", "store", "work", "edge", "accounts", "play", "community"},
    "site": {"basics", "store", "work", "edge", "accounts", "play", "community", "bots"},
    "top": {"basics", "store", "work", "edge", "accounts", "play", "community", "bots", "site"},
}

#: The most modules (``__init__.py`` not counted) at the top of
#: ``kamisado/web/`` and in any folder of the package (the migrations'
#: versions, a history, are not counted).
WEB_TOP_MAX = 12
FOLDER_MAX = 15


def room_of(module: str) -> str:
    """The room of a dotted module name inside the package.

    >>> room_of("kamisado.rules.position"), room_of("kamisado"), room_of("kamisado.cli")
    ('rules', 'face', 'cli')
    """
    parts = module.split(".")
    if len(parts) == 1:
        return "face"
    return parts[1]


def modules() -> list[tuple[str, Path]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts.pop()
        if "migrations" in parts:
            continue
        out.append((".".join(parts), path))
    return out


def imports(path: Path, module: str, submodules: bool = False) -> list[tuple[str, int, str | None]]:
    """Every module imported by the file: (dotted name, line, enclosing function).

    With ``submodules``, ``from package import name`` gives ``package.name``
    when that is a module of the package (``from kamisado.web.basics import
    clocks``), else ``package`` (a name its ``__init__`` holds)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[str, int, str | None]] = []

    def visit(node: ast.AST, func: str | None) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                visit(child, child.name)
                continue
            if isinstance(child, ast.Import):
                found.extend((a.name, child.lineno, func) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = module.split(".")
                    is_pkg = path.name == "__init__.py"
                    base = base[: len(base) - child.level + (1 if is_pkg else 0)]
                    name = ".".join(base + ([child.module] if child.module else []))
                else:
                    name = child.module or ""
                if name == "kamisado":
                    found.extend((f"kamisado.{a.name}", child.lineno, func)
                                 for a in child.names)
                elif submodules and name.startswith("kamisado"):
                    found.extend((f"{name}.{a.name}" if _is_module(f"{name}.{a.name}") else name,
                                  child.lineno, func) for a in child.names)
                else:
                    found.append((name, child.lineno, func))
            visit(child, func)

    visit(tree, None)
    return found


def _is_module(name: str) -> bool:
    path = PACKAGE.parent / Path(*name.split("."))
    return (path.with_suffix(".py").exists() or (path / "__init__.py").exists()
            or path.with_suffix(".pyi").exists())  # the C extension: its stub stands for it


def web_room_of(module: str) -> str | None:
    """The web room of a dotted module name (``None``: outside the web wing).

    >>> web_room_of("kamisado.web.play.game"), web_room_of("kamisado.web"), web_room_of("kamisado.tui")
    ('play', 'top', None)
    """
    parts = module.split(".")
    if parts[:2] != ["kamisado", "web"]:
        return None
    return parts[2] if len(parts) > 2 else "top"


def graph() -> dict[str, dict[str, tuple[Path, int]]]:
    """Every module's imports of the package's modules: ``{module: {imported:
    (file, line)}}``, every import counted (at the top, inside functions,
    under ``TYPE_CHECKING``).  ``from package import name`` is an edge to
    the submodule when ``name`` is one, else to the package's
    ``__init__``; a module of the package that is not read here (the
    migrations, the C extension) is no node.  The notebook hook
    (:data:`EXCEPTIONS`) is left out."""
    known = dict(modules())
    edges: dict[str, dict[str, tuple[Path, int]]] = {m: {} for m in known}
    for module, path in known.items():
        for name, line, func in imports(path, module, submodules=True):
            if name.split(".")[0] != "kamisado":
                continue
            while name not in known and not _is_module(name) and "." in name:
                name = name.rsplit(".", 1)[0]  # ``from kamisado.engine import solve``
            if name not in known or name == module:
                continue
            if (room_of(module), room_of(name), func) in EXCEPTIONS:
                continue
            edges[module].setdefault(name, (path, line))
    return edges


def circles(edges: dict[str, dict[str, tuple[Path, int]]]) -> list[list[str]]:
    """The import circles: one circle (a path back to its start) for each
    group of modules that reach one another (Tarjan's strongly connected
    components), sorted.

    >>> circles({"a": {"b": ...}, "b": {"a": ...}, "c": {"a": ...}})
    [['a', 'b', 'a']]
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(group)

    for v in sorted(edges):
        if v not in index:
            visit(v)
    found = []
    for group in groups:  # a shortest way round from the group's first module
        start = min(group)
        paths = {start: [start]}
        queue = [start]
        circle: list[str] | None = None
        while queue and circle is None:
            v = queue.pop(0)
            for w in sorted(edges[v]):
                if w == start:
                    circle = paths[v] + [start]
                    break
                if w in group and w not in paths:
                    paths[w] = paths[v] + [w]
                    queue.append(w)
        assert circle is not None
        found.append(circle)
    return sorted(found)


def test_every_room_imports_only_inward() -> None:
    wrong = []
    for module, path in modules():
        room = room_of(module)
        for name, line, func in imports(path, module):
            if name.split(".")[0] != "kamisado":
                continue
            if name.count(".") >= 2 and not _is_module(name):
                name = name.rsplit(".", 1)[0]  # ``from kamisado.engine import solve``
            if name == "kamisado" or name == "kamisado.__version__":
                continue
            target = room_of(name)
            if target == room or target in ALLOWED[room]:
                continue
            if (room, target, func) in EXCEPTIONS:
                continue
            wrong.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {room} imports {name}")
    assert wrong == []


@pytest.mark.parametrize("room", sorted(THIRD_PARTY))
def test_inner_rooms_use_only_the_standard_library(room: str) -> None:
    wrong = []
    for module, path in modules():
        if room_of(module) != room:
            continue
        for name, line, _func in imports(path, module):
            top = name.split(".")[0]
            if top in ("kamisado", "__future__") or top in sys.stdlib_module_names:
                continue
            if top not in THIRD_PARTY[room]:
                wrong.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {name}")
    assert wrong == []


def test_every_module_belongs_to_a_known_room() -> None:
    assert {room_of(m) for m, _ in modules()} <= set(ALLOWED)


def test_the_package_face_loads_only_the_rules() -> None:
    """``import kamisado`` loads the rules; the engine, the client and the
    pictures load on first use."""
    import subprocess

    code = ("import sys, kamisado\n"
            "print(sorted(m for m in sys.modules if m.startswith('kamisado')))\n"
            "kamisado.solve\n"
            "print('kamisado.engine' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=PACKAGE.parent, timeout=120).stdout.splitlines()
    loaded = eval(out[0])  # a printed list of names
    assert loaded and all(m == "kamisado" or m.startswith("kamisado.rules") for m in loaded)
    assert out[1] == "True"


def test_a_room_that_imports_outward_is_caught(tmp_path: Path) -> None:
    """The checker itself: an engine import inside the rules is found."""
    bad = tmp_path / "bad.py"
    bad.write_text("from kamisado.engine import search\n"
                   "def f():\n    from kamisado.pictures import svg\n")
    found = imports(bad, "kamisado.rules.bad")
    assert [(n, f) for n, _, f in found] == [("kamisado.engine", None),
                                              ("kamisado.pictures", "f")]


def test_no_import_circle() -> None:
    """No module imports one that imports it back, however far round (every
    import counted; the notebook hook left out)."""
    found = [" -> ".join(c) for c in circles(graph())]
    assert not found, "import circles:\n" + "\n".join(found)


def test_the_web_rooms_import_only_inward() -> None:
    """The web wing's rooms form layers (:data:`WEB_ALLOWED`)."""
    wrong = []
    for module, imported in graph().items():
        room = web_room_of(module)
        if room is None:
            continue
        for name, (path, line) in imported.items():
            target = web_room_of(name)
            if target is None or target == room or target in WEB_ALLOWED[room]:
                continue
            wrong.append(f"{path.relative_to(PACKAGE.parent)}:{line}: web {room} imports {name}")
    assert wrong == []
    rooms = {p.name for p in (PACKAGE / "web").iterdir() if (p / "__init__.py").exists()}
    assert rooms == set(WEB_ALLOWED) - {"top"}


def test_every_web_room_says_its_job() -> None:
    """Each web room's ``__init__`` says its job in its docstring, and holds nothing else."""
    for room in set(WEB_ALLOWED) - {"top"}:
        tree = ast.parse((PACKAGE / "web" / room / "__init__.py").read_text(encoding="utf-8"))
        assert ast.get_docstring(tree), room
        assert len(tree.body) == 1, room


def test_no_folder_holds_too_many_modules() -> None:
    counts = {}
    for folder in [PACKAGE, *PACKAGE.rglob("*")]:
        if not folder.is_dir() or "__pycache__" in folder.parts or folder.name == "versions":
            continue
        counts[folder.relative_to(PACKAGE.parent).as_posix()] = len(
            [p for p in folder.glob("*.py") if p.name != "__init__.py"])
    assert counts["kamisado/web"] <= WEB_TOP_MAX
    assert {f: n for f, n in counts.items() if n > FOLDER_MAX} == {}


def test_a_circle_is_caught_and_named(tmp_path: Path) -> None:
    """The checker itself: a circle through a function's import and a
    ``TYPE_CHECKING`` import is found, and named module by module."""
    game = tmp_path / "game.py"
    games = tmp_path / "games.py"
    game.write_text("def f():\n    from kamisado.web.play import games\n")
    games.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                     "    from kamisado.web.play.game import Game\n")
    edges: dict[str, dict[str, tuple[Path, int]]] = {}
    for module, path in (("kamisado.web.play.game", game), ("kamisado.web.play.games", games)):
        edges[module] = {name: (path, line) for name, line, _func in imports(path, module, submodules=True)
                         if name.startswith("kamisado")}
    assert edges == {"kamisado.web.play.game": {"kamisado.web.play.games": (game, 2)},
                     "kamisado.web.play.games": {"kamisado.web.play.game": (games, 3)}}
    assert circles(edges) == [["kamisado.web.play.game", "kamisado.web.play.games", "kamisado.web.play.game"]]


#: The largest a file of code may grow (lines), and a class in it; migrations aside.
FILE_MAX = 1000
CLASS_MAX = 600
#: The largest a page of docs/ may grow, and the README.
PAGE_MAX = 800
README_MAX = 300
ROOT = PACKAGE.parent
CODE_SUFFIXES = {".py", ".c", ".h", ".pyi", ".js", ".css", ".html"}


def code_files() -> list[Path]:
    """Every file of code in the clone's own folders (not node_modules, not a migration)."""
    out = []
    for top in ("kamisado", "tests", "bench", "tools", ".ci"):
        for path in sorted((ROOT / top).rglob("*")):
            if path.suffix in CODE_SUFFIXES and path.is_file() and "versions" not in path.parts \
                    and "__pycache__" not in path.parts:
                out.append(path)
    return out


def lines_of(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def too_long(paths: list[Path], most: int, root: Path = ROOT) -> dict[str, int]:
    """The files of ``paths`` over ``most`` lines, and their lengths (named from ``root``).

    >>> too_long([Path(__file__)], 10**6)
    {}
    """
    return {p.relative_to(root).as_posix(): n for p in paths if (n := lines_of(p)) > most}


def test_no_file_of_code_is_over_a_thousand_lines() -> None:
    files = code_files()
    assert len(files) > 200 and any(p.suffix == ".c" for p in files) and any(p.suffix == ".js" for p in files)
    assert too_long(files, FILE_MAX) == {}


def test_no_class_is_over_six_hundred_lines() -> None:
    big = {}
    for path in code_files():
        if path.suffix not in {".py", ".pyi"}:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and (n := node.end_lineno - node.lineno + 1) > CLASS_MAX:  # type: ignore[operator]
                big[f"{path.relative_to(ROOT).as_posix()}:{node.name}"] = n
    assert big == {}


def test_docs_pages_and_the_readme_stay_short() -> None:
    pages = sorted((ROOT / "docs").glob("*.md"))
    assert (ROOT / "docs" / "index.md") in pages and len(pages) > 10
    assert too_long(pages, PAGE_MAX) == {}
    assert too_long([ROOT / "README.md"], README_MAX) == {}


def test_a_long_file_is_caught(tmp_path: Path) -> None:
    """The checker itself: one line over is caught, the limit itself is not."""
    at, over = tmp_path / "at.py", tmp_path / "over.py"
    at.write_text("x = 1\n" * FILE_MAX)
    over.write_text("x = 1\n" * (FILE_MAX + 1))
    assert too_long([at, over], FILE_MAX, tmp_path) == {"over.py": FILE_MAX + 1}
