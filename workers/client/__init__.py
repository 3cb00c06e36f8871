"""The sending side of the Celery workers: what the CLI and the dashboard use to hand work
to them."""
