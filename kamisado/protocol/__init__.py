"""The engine protocol (KEI) and what speaks it: the engine side, the client,
tournaments between engines and their Elo figures.

* :mod:`kamisado.protocol.kei`: ``kamisado engine``, this package's engine
  speaking KEI on standard input and output (docs/protocol.md): its state
  machine and command line; :mod:`kamisado.protocol.kei_go` reads ``go`` and
  manages the clock, :mod:`kamisado.protocol.kei_jobs` runs the searches.
* :mod:`kamisado.protocol.client`: drive any KEI engine from Python
  (:class:`~kamisado.protocol.client.SimpleEngine`).
* :mod:`kamisado.protocol.tournament_cli`: ``kamisado tournament``; what it
  plays is set in :mod:`kamisado.protocol.tournament_config`, played by
  :mod:`kamisado.protocol.tournament` (its engines held by
  :mod:`kamisado.protocol.tournament_engines`, a game's rules in
  :mod:`kamisado.protocol.tournament_game`) and written down by
  :mod:`kamisado.protocol.tournament_results`.
* :mod:`kamisado.protocol.elo`: Elo differences and their error bars.
"""
