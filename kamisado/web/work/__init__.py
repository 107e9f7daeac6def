"""The engine's work off the event loop: in the process pool (worker) or on the Redis queue (jobs, ``kamisado worker``)."""
