"""The engine's twin in pure Python: the compiled core's whole API, node for node (``engine``)."""
