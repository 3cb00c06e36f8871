"""Celery workers: the cluster backend. Tasks are thin; every decision lives in ``arena``."""
