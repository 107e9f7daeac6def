"""Programs on the site: bot accounts, challenges over HTTP, and the
newline-delimited JSON streams of a player's events and of a game."""
