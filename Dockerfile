# One image for every platform service: the migration job, the workers and the dashboard.
FROM python:3.11-slim

# bubblewrap and util-linux (prlimit, setpriv): the bot sandbox; nodejs: JavaScript bots.
RUN apt-get update \
    && apt-get install -y --no-install-recommends bubblewrap util-linux procps nodejs npm \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY . /app
RUN pip install --no-cache-dir /app \
    && (cd sample_bots/js_lowcard && npm ci --no-audit --no-fund --silent) \
    && chmod -R o+rX /app

# Bot archives are fetched from the database; this is only each worker's cache and logs.
ENV ARENA_DATA_DIR=/var/lib/arena
CMD ["arena", "--help"]
