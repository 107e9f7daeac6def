"""Build the compiled core ``kamisado.engine._ckamisado`` (everything else is in pyproject.toml).

The extension is optional: where it cannot be built (no C compiler, no
Python headers) the install still succeeds and the package runs the same
engine in pure Python (``kamisado.engine._pyengine``; ``kamisado --version`` says
which).  ``-g0`` comes after Python's own CFLAGS (which hold ``-g``): the
module is built without debug information.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "kamisado.engine._ckamisado",
            sources=["kamisado/engine/_ckamisado.c"],
            extra_compile_args=[
                "-O3",
                "-Wall",
                "-Wextra",
                "-Wno-unused-parameter",
                "-Wno-missing-field-initializers",
                "-Wno-cast-function-type",
                "-g0",
            ],
            optional=True,
        )
    ]
)
