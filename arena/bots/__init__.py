"""Bots that play on the platform: the built-in house bots and adapters for outside bots."""
