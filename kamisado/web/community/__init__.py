"""Players finding games: challenges (the lobby) and quick pairing (seeks)."""
