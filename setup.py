"""Build the compiled core ``kamisado.engine._ckamisado`` (everything else is in pyproject.toml).

The extension is the engine core in plain C (``kamisado/engine/core/*.c``,
no Python: docs/engine-core.md) with its Python binding
(``kamisado/engine/_ckamisado*.c``).  It is optional: where it cannot be built (no C
compiler, no Python headers) the install still succeeds and the package runs
the same engine in pure Python (``kamisado.engine._pure.engine``; ``kamisado --version``
says which).  ``-g0`` comes after Python's own CFLAGS (which hold ``-g``): the
module is built without debug information.  ``-fvisibility=hidden``: the
core's functions and tables are called and read directly, as those of one
file, and the module exports only its init function.
"""

from setuptools import Extension, setup

CORE = "kamisado/engine/core"

setup(
    ext_modules=[
        Extension(
            "kamisado.engine._ckamisado",
            sources=[
                f"kamisado/engine/_ckamisado{part}.c" for part in ("", "_position", "_searcher")
            ]
            + [
                f"{CORE}/{name}.c"
                for name in ("board", "tables", "solve", "solve_pn", "solve_pt", "eval", "search")
            ],
            include_dirs=[CORE],
            depends=[f"{CORE}/kamisado.h", f"{CORE}/solve.h", "kamisado/engine/_ckamisado.h"],
            extra_compile_args=[
                "-O3",
                "-Wall",
                "-Wextra",
                "-Wno-unused-parameter",
                "-Wno-missing-field-initializers",
                "-Wno-cast-function-type",
                "-fvisibility=hidden",
                "-g0",
            ],
            optional=True,
        )
    ]
)
