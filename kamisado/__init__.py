"""Kamisado: rules engine, notation, match flow and tools."""
from kamisado.core import *  # noqa: F401,F403
from kamisado.core import __all__ as _core_all

__all__ = list(_core_all)
__version__ = "0.1.0"
