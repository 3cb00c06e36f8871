"""The stdio-json protocol: callbreak.v1's messages as JSON lines on the bot's stdin and
stdout, for a language without a usable gRPC stack (see docs/protocol.md, "stdio-json").
``relay.py`` runs in the bot's sandbox; ``player.py`` is the referee's side."""
