"""Tests of arena.store."""
