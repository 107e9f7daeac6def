"""Build the engine core as WebAssembly: ``kamisado/web/static/engine/kamisado.wasm``.

The very C files of the Python extension (``kamisado/engine/core/*.c``) and
the exports of the page's engine (``kamisado/engine/wasm/api.c``) are
compiled with clang for ``wasm32-wasi`` as a reactor (no ``main``; the
page's worker calls ``_initialize`` and the exports), linked with lld
against wasi-libc.  The build is byte-for-byte reproducible: no debug
information, no paths (``-ffile-prefix-map``), no timestamps, the files in
a fixed order; so CI rebuilds it and fails when it differs from the
committed file (``--check``), and a change to the C core can never leave
the browser's engine behind.

Needs (Debian): ``apt-get install clang lld wasi-libc libclang-rt-14-dev-wasm32``.

    python tools/build_wasm.py            # rebuild in a temporary folder, compare (--check)
    python tools/build_wasm.py --write    # write the .wasm

Exit status: 0 current (or written), 1 stale, 2 no compiler or a failed build.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # tools/generated.py, however this is loaded

import generated  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "kamisado" / "engine" / "core"
API = ROOT / "kamisado" / "engine" / "wasm" / "api.c"
OUT = ROOT / "kamisado" / "web" / "static" / "engine" / "kamisado.wasm"
#: wasi-libc's headers and libraries as Debian installs them
SYSROOT_INCLUDE = Path("/usr/include/wasm32-wasi")
SYSROOT_LIB = Path("/usr/lib/wasm32-wasi")

#: the compiler's options: the speed ones measured by bench/wasm.py
CFLAGS = [
    "--target=wasm32-wasi",
    "-std=c11",
    "-O3",
    "-flto",
    "-msimd128",
    "-mbulk-memory",
    "-mnontrapping-fptoint",
    "-msign-ext",
    "-g0",
    "-DNDEBUG",
    "-Wall",
    "-Wextra",
    "-Wno-unused-parameter",
    "-Wno-missing-field-initializers",
    "-fvisibility=hidden",
]
#: the linker's: a reactor (no main), only the exports of api.c, a stack of
#: 1 MiB (the solver recurses deeply), memory that grows (the tables)
LDFLAGS = [
    "-mexec-model=reactor",
    "-Wl,--no-entry",
    "-Wl,--strip-all",
    "-Wl,--gc-sections",
    "-Wl,-z,stack-size=1048576",
    "-Wl,--initial-memory=4194304",
    "-Wl,--max-memory=2147483648",
]


def sources() -> list[Path]:
    """The C files, in a fixed order: the core's, then the exports."""
    return sorted(CORE.glob("*.c")) + [API]


def command(out: Path) -> list[str]:
    """The clang command that writes the module to ``out``."""
    cc = os.environ.get("WASM_CC", "clang")
    return [
        cc,
        *CFLAGS,
        f"--sysroot={SYSROOT_INCLUDE.parent.parent}",
        f"-isystem{SYSROOT_INCLUDE}",
        f"-L{SYSROOT_LIB}",
        f"-I{CORE}",
        f"-ffile-prefix-map={ROOT}/=",
        *LDFLAGS,
        *(str(s.relative_to(ROOT)) for s in sources()),
        "-o",
        str(out),
    ]


def build(out: Path) -> None:
    """Compile the module to ``out`` (raises ``RuntimeError`` with clang's message)."""
    if shutil.which(os.environ.get("WASM_CC", "clang")) is None:
        raise RuntimeError(
            "clang not found: apt-get install clang lld wasi-libc libclang-rt-14-dev-wasm32"
        )
    if not SYSROOT_LIB.is_dir():
        raise RuntimeError(f"wasi-libc not found in {SYSROOT_LIB}: apt-get install wasi-libc")
    out.parent.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, SOURCE_DATE_EPOCH="0", LC_ALL="C")
    res = subprocess.run(command(out), cwd=ROOT, capture_output=True, text=True, env=env)
    if res.returncode != 0:
        raise RuntimeError(f"clang failed:\n{res.stderr}")
    if res.stderr.strip():
        print(res.stderr, file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Rebuild the module in a temporary folder; compare it (the default) or write it."""
    ap = argparse.ArgumentParser(prog="tools/build_wasm.py", description=__doc__.split("\n\n")[0])
    generated.add_options(ap, "kamisado/web/static/engine/kamisado.wasm")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "kamisado.wasm"
        try:
            build(fresh)
        except RuntimeError as e:
            print(f"build_wasm: {e}", file=sys.stderr)
            return 2
        return generated.settle({OUT: fresh.read_bytes()}, write=args.write, script="build_wasm.py")


if __name__ == "__main__":
    sys.exit(main())
