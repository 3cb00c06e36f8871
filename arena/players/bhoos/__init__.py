"""Bots that speak the Bhoos "Smart Bots" HTTP/JSON protocol (docs/bhoos.md).

``wire`` translates observations and cards both ways, ``client`` is the platform's capped
HTTP client, ``player`` the Player that drives such a bot, and ``relay`` the script that
runs inside a sandboxed bot, bridging the platform's Unix socket to the bot's port 7000.
"""
