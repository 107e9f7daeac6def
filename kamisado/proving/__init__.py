"""The match as a game of rounds, proven: who wins a Standard, Long or
Marathon match with perfect play (``kamisado solve-match``), the proof
written out and re-checked (``kamisado verify-match``).

A node is a round start (the board after the winner's fill, the score, the
towers' rings, who opens: all of it in the start's KPN, its canonical
text).  A round's terminal positions are worth the match value after them
(:mod:`kamisado.proving.rounds`); proven starts go to a store that survives
a stop (:mod:`kamisado.proving.store`); the tasks run on ``dask.distributed``
(:mod:`kamisado.proving.run`); :mod:`kamisado.proving.proof` exports and
verifies.  docs/match-proof.md has the design.
"""
