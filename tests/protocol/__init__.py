"""Tests of the bot protocol: the .proto, its generated stubs and the sample bots."""
