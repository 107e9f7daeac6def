"""Which engine core runs: the compiled one, or the pure-Python one.

:mod:`kamisado.engine._ckamisado` (the C extension) when it was built, else
:mod:`kamisado.engine._pure.engine`, the same API in pure Python (slower, same
results).  Setting ``KAMISADO_PURE_PYTHON=1`` forces the pure-Python core,
for tests and comparisons.  The choice is made once, at import.

>>> BACKEND in ("compiled", "python")
True
>>> impl.Position().perft(1)
102
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

__all__ = ["BACKEND", "ENV_PURE_PYTHON", "impl"]

#: The environment variable that forces the pure-Python core.
ENV_PURE_PYTHON = "KAMISADO_PURE_PYTHON"


def _pure_python_forced() -> bool:
    return os.environ.get(ENV_PURE_PYTHON, "").strip() not in ("", "0")


if TYPE_CHECKING:
    # both modules have the API of the stub _ckamisado.pyi
    from kamisado.engine import _ckamisado as impl
elif _pure_python_forced():
    from kamisado.engine._pure import engine as impl
else:
    try:
        from kamisado.engine import _ckamisado as impl
    except ImportError:
        from kamisado.engine._pure import engine as impl

#: ``"compiled"`` or ``"python"``: the core :data:`impl` is.
BACKEND: str = "python" if impl.__name__ == "kamisado.engine._pure.engine" else "compiled"
