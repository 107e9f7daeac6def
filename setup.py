"""Build the compiled core ``kamisado._ckamisado`` (everything else is in pyproject.toml)."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "kamisado._ckamisado",
            sources=["kamisado/_ckamisado.c"],
            extra_compile_args=[
                "-O3",
                "-Wall",
                "-Wextra",
                "-Wno-unused-parameter",
                "-Wno-missing-field-initializers",
                "-Wno-cast-function-type",
            ],
        )
    ]
)
