"""Callbreak Master: a tournament platform for Callbreak bots."""
