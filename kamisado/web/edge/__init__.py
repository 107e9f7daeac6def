"""Facing the network: rate limits and caps (guard), the connection's edge, slow heads and caps on connections (doors), the public URL behind a proxy."""
