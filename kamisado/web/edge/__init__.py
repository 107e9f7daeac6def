"""Facing the network: rate limits and caps (guard), the connection's edge, the public URL behind a proxy."""
