"""Accounts on the web: browser sessions, log-in limits, the dashboard's secret key.

Plain functions on a ``Session`` (the caller owns the transaction), as in :mod:`arena.store`;
the Flask views in ``dashboard/`` only call them.
"""
