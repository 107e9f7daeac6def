"""What the scripts in tools/ that make tracked files share: ``--write`` and ``--check``.

A generated file is committed (the pictures in docs/, the data in
kamisado/data/), so a script writes it only when asked: ``--write``.  By
default (``--check``) it makes the files in memory or in a temporary folder,
compares them with the tracked ones, prints what differs and exits 1 when
any is stale (or missing), 0 when every one is current; CI runs the quick
checks (``.ci/run``).

Each script makes its files as ``{path: bytes}`` (paths under the
repository's root) and hands them to :func:`settle`, which writes or
compares them.
"""

from __future__ import annotations

import argparse
import difflib
import io
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Lines of differences shown per stale file.
SHOWN_LINES = 12
#: Characters shown either side of where two long lines first differ.
CONTEXT = 60

#: What :func:`same_pictures` compares by pixels (other files: by bytes).
PICTURES = (".png", ".gif")
#: A box in a picture: left, top, right, bottom (pixels; right and bottom excluded).
Box = tuple[int, int, int, int]
#: ``same(path, tracked, made)``: ``None`` when ``made`` counts as ``tracked``
#: (current), else the lines saying how they differ.
Compare = Callable[[Path, bytes, bytes], "list[str] | None"]


def add_options(parser: argparse.ArgumentParser, what: str) -> argparse._MutuallyExclusiveGroup:
    """``--write`` and ``--check`` (the default), exclusive; returns their
    group (a script's ``--out FILE``, writing elsewhere, joins it)."""
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true",
                      help=f"write {what} (tracked files; nothing is written without it)")
    mode.add_argument("--check", action="store_true",
                      help="the default: make them in memory, compare with the tracked"
                      " files, print what differs; exit 1 when one is stale, 0 when all"
                      " are current")
    return mode


def shown(path: Path) -> str:
    """``path`` relative to the repository's root when it is inside it."""
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def settle(
    made: Mapping[Path, bytes],
    *,
    write: bool,
    script: str,
    same: Compare | None = None,
    retired: Iterable[Path] = (),
) -> int:
    """Write ``made`` (``write``) or check it against the tracked files.

    ``same`` compares a made file with its tracked version (default: equal
    bytes, the differences shown by :func:`differences`); ``retired`` are
    tracked files the script no longer makes (removed by ``--write``, stale
    for ``--check``).  Returns the exit status: 1 when checking finds a
    stale, missing or retired file, else 0.
    """
    stale = 0
    for path, data in made.items():
        old = path.read_bytes() if path.exists() else None
        if old is not None:
            why = (same or _same_bytes)(path, old, data)
            if why is None:
                print(f"{shown(path)}: current")
                continue
        else:
            why = ["not there"]
        if write:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            print(f"{shown(path)}: written ({len(data):,} bytes)")
            continue
        stale += 1
        print(f"{shown(path)}: stale")
        for line in why:
            print(f"    {line}")
    for path in retired:
        if write:
            path.unlink()
            print(f"{shown(path)}: removed (no longer made)")
        else:
            stale += 1
            print(f"{shown(path)}: stale\n    no longer made (--write removes it)")
    if stale:
        print(f"{stale} of {len(made)} files stale: run python3 tools/{script} --write")
        return 1
    return 0


def _same_bytes(path: Path, old: bytes, new: bytes) -> list[str] | None:
    return None if old == new else differences(path, old, new)


def differences(path: Path, old: bytes, new: bytes) -> list[str]:
    """Lines saying how ``new`` (made now) differs from ``old`` (tracked).

    >>> differences(Path("a.txt"), b"one\\ntwo\\n", b"one\\nsix\\n")
    ['line 2:', '  - two', '  + six']
    >>> differences(Path("a.txt"), b"one\\ntwo\\n", b"one\\nthree\\n")
    ['line 2, column 2:', '  - two', '  + three']
    >>> differences(Path("a.svg"), b'<svg x="122">', b'<svg x="173">')
    ['line 1, column 10:', '  - <svg x="122">', '  + <svg x="173">']
    """
    try:
        old_text, new_text = old.decode(), new.decode()
    except UnicodeDecodeError:
        return _binary(old, new)
    a, b = old_text.splitlines(), new_text.splitlines()
    out: list[str] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag == "replace" and i2 - i1 == j2 - j1:
            for i, j in zip(range(i1, i2), range(j1, j2), strict=True):
                out += _changed_line(i + 1, a[i], b[j])
        else:
            out.append(f"lines {i1 + 1}-{i2} ({i2 - i1} tracked, {j2 - j1} made):")
            out += [f"  - {_clip(line)}" for line in a[i1:i2]]
            out += [f"  + {_clip(line)}" for line in b[j1:j2]]
        if len(out) > SHOWN_LINES:
            break
    if not out:  # only the line ends differ
        out = ["the same lines, different line ends"]
    if len(out) > SHOWN_LINES:
        out = out[:SHOWN_LINES] + ["  ..."]
    return out


def _changed_line(number: int, old: str, new: str) -> list[str]:
    col = next((k for k, (x, y) in enumerate(zip(old, new, strict=False)) if x != y),
               min(len(old), len(new)))
    start = max(0, col - CONTEXT)
    cut = "..." if start else ""

    def window(text: str) -> str:
        end = col + CONTEXT
        return cut + text[start:end] + ("..." if len(text) > end else "")

    where = f"line {number}" + (f", column {col + 1}" if len(old) > 2 * CONTEXT or col else "")
    return [f"{where}:", f"  - {window(old)}", f"  + {window(new)}"]


def _clip(line: str) -> str:
    return line if len(line) <= 2 * CONTEXT else line[: 2 * CONTEXT] + "..."


def _binary(old: bytes, new: bytes) -> list[str]:
    out = [f"{len(old):,} bytes tracked, {len(new):,} bytes made"]
    try:
        from PIL import Image

        a, b = Image.open(io.BytesIO(old)), Image.open(io.BytesIO(new))
    except Exception:  # not pictures Pillow reads: the sizes say enough
        return out
    frames = [getattr(im, "n_frames", 1) for im in (a, b)]
    if a.size != b.size or frames[0] != frames[1]:
        out.append(f"{a.size[0]}x{a.size[1]}, {frames[0]} frame(s) tracked;"
                   f" {b.size[0]}x{b.size[1]}, {frames[1]} frame(s) made")
        return out
    for frame in range(frames[0]):
        a.seek(frame)
        b.seek(frame)
        count, box = pixels_apart(a.convert("RGB"), b.convert("RGB"))
        if count:
            where = f"frame {frame + 1}: " if frames[0] > 1 else ""
            out.append(f"{where}{count:,} pixels differ, within {box}")
    return out


def same_pictures(threshold: int = 0, allowed: float = 0.0,
                  ignored: Mapping[str, Sequence[Box]] | None = None) -> Compare:
    """A comparison of pictures (PNG, GIF) by their pixels, not their bytes
    (another Pillow may encode the same frames differently): current when
    they have the same size, frames and frame durations, and in each frame
    at most ``allowed`` (a share, 0.0001 is one pixel in 10,000) of the
    pixels differ by more than ``threshold`` (0..255) in some channel,
    leaving out the boxes ``ignored[file name]`` (parts that show the clock).
    Files that are not :data:`PICTURES` are compared by their bytes."""

    def same(path: Path, old: bytes, new: bytes) -> list[str] | None:
        if old == new:
            return None
        if path.suffix.lower() not in PICTURES:
            return differences(path, old, new)
        from PIL import Image

        def blank(im: Image.Image) -> Image.Image:
            for box in (ignored or {}).get(path.name, ()):
                im.paste((0, 0, 0), box)
            return im

        try:
            a, b = Image.open(io.BytesIO(old)), Image.open(io.BytesIO(new))
        except Exception:
            return _binary(old, new)
        frames = [getattr(im, "n_frames", 1) for im in (a, b)]
        if a.size != b.size or frames[0] != frames[1]:
            return _binary(old, new)
        out = []
        limit = allowed * a.size[0] * a.size[1]
        for frame in range(frames[0]):
            a.seek(frame)
            b.seek(frame)
            where = f"frame {frame + 1}: " if frames[0] > 1 else ""
            if a.info.get("duration") != b.info.get("duration"):
                out.append(f"{where}shown {a.info.get('duration')} ms tracked,"
                           f" {b.info.get('duration')} ms made")
            count, box = pixels_apart(blank(a.convert("RGB")), blank(b.convert("RGB")),
                                      threshold)
            if count > limit:
                out.append(f"{where}{count:,} pixels differ, within {box}")
        return out or None

    return same


def pixels_apart(a: object, b: object, threshold: int = 0) -> tuple[int, tuple[int, ...] | None]:
    """How many pixels of two RGB pictures of one size differ by more than
    ``threshold`` in some channel, and the box holding them."""
    from PIL import Image, ImageChops

    assert isinstance(a, Image.Image) and isinstance(b, Image.Image)
    # each pixel's largest channel difference, then those above the threshold
    r, g, bl = ImageChops.difference(a, b).split()
    diff = ImageChops.lighter(ImageChops.lighter(r, g), bl)
    mask = diff.point(lambda v: 255 if v > threshold else 0)
    box = mask.getbbox()
    if box is None:
        return 0, None
    count = mask.histogram()[255]
    return count, box


def fail(script: str, message: str) -> int:
    """One line on standard error, exit status 2."""
    print(f"{script}: {message}", file=sys.stderr)
    return 2
