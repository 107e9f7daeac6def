"""A client of a kamisado site's HTTP API (docs/bots.md): ``Client``, and
``kamisado bot``, which puts a KEI engine online through it.

>>> from kamisado.api import ApiError, Client
>>> with Client("http://localhost:8000", "kam_secret") as client:
...     client.bots
<Bots of http://localhost:8000>
"""

from kamisado.api.client import ApiError, Client

__all__ = ["ApiError", "Client"]
