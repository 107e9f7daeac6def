"""A client of a kamisado site's HTTP API (docs/bots.md): ``Client``, and
``kamisado bot``, which puts a KEI engine online through it."""
