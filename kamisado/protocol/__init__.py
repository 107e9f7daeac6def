"""The engine protocol (KEI) and what speaks it: the engine side, the client,
tournaments between engines and their Elo figures.

* :mod:`kamisado.protocol.kei`: ``kamisado engine``, this package's engine
  speaking KEI on standard input and output (docs/protocol.md).
* :mod:`kamisado.protocol.client`: drive any KEI engine from Python
  (:class:`~kamisado.protocol.client.SimpleEngine`).
* :mod:`kamisado.protocol.tournament`: ``kamisado tournament``.
* :mod:`kamisado.protocol.elo`: Elo differences and their error bars.
"""
