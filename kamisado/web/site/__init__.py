"""The site itself: the Starlette app, the page and JSON API, the websocket, pictures, analysis, puzzles, offline, operations."""
