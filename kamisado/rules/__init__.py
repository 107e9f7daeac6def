"""The rules of Kamisado: positions and moves, the notation, matches, records.

This wing imports nothing outside the standard library and knows nothing of
the engine, pictures or any user interface (``docs/architecture.md``).

* :mod:`kamisado.rules.position`: :class:`~kamisado.rules.position.Position`,
  :class:`~kamisado.rules.position.Move`, the errors, the board layout and KPN.
* :mod:`kamisado.rules.notation`: every written form of a move.
* :mod:`kamisado.rules.match`: matches of 1, 3, 7 or 15 points, Sumo towers,
  fills between rounds.
* :mod:`kamisado.rules.record`: match records, read and written.
"""
