"""Alembic migrations of the store; run them with ``arena.store.migrate.upgrade(url)``."""
