"""The rooms of the package and which may use which (docs/architecture.md).

Every module of ``kamisado/`` is read (not imported) and each of its
imports, at the top or inside a function, is checked against the room it
belongs to: a room uses only the rooms inside it.  The rules use nothing
outside the standard library.
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
    "protocol": {"rules", "args", "pictures", "engine"},
    "lessons": {"rules", "engine"},
    "tui": {"rules", "args", "pictures", "engine", "protocol", "lessons", "face"},
    "web": {"rules", "args", "pictures", "engine", "protocol", "lessons", "tui", "face"},
    "cli": {"rules", "args", "pictures", "engine", "protocol", "lessons", "tui", "web", "face"},
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
}

#: The one way outward: a position or match draws itself in a notebook
#: (``_repr_svg_``), importing the board picture only when asked, as
#: python-chess does.
EXCEPTIONS = {("rules", "pictures", "_repr_svg_")}


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


def imports(path: Path, module: str) -> list[tuple[str, int, str | None]]:
    """Every module imported by the file: (dotted name, line, enclosing function)."""
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
                else:
                    found.append((name, child.lineno, func))
            visit(child, func)

    visit(tree, None)
    return found


def _is_module(name: str) -> bool:
    return (PACKAGE.parent / Path(*name.split("."))).with_suffix(".py").exists() or (
        PACKAGE.parent / Path(*name.split(".")) / "__init__.py").exists()


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
