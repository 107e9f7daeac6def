"""The site's plain pieces, no I/O: clocks, ratings, text rules, the typed messages and the views they carry, repeated failures, metrics."""
