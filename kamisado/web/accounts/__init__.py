"""Accounts: players, their passwords and server-side sessions."""
