# One image for every platform service: the migration job, the beat, the workers and the
# dashboard (docker-compose.yml; docs/deploy.md).
# bookworm: the toolchain table names Debian 12 packages.
FROM python:3.11-slim-bookworm

# bubblewrap and util-linux (prlimit, setpriv): the bot sandbox; nodejs: JavaScript bots.
RUN apt-get update \
    && apt-get install -y --no-install-recommends bubblewrap util-linux procps nodejs npm \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY . /app
RUN pip install --no-cache-dir /app \
    && (cd sample_bots/js_lowcard && npm ci --no-audit --no-fund --silent) \
    && chmod -R o+rX /app

# The bots' toolchains, from the platform's table (`arena runtimes`): each worker builds and
# plays the bots of the toolchains its image has. ARENA_RUNTIMES=c,go (say) makes a smaller
# image; "" none beyond Python and Node.
ARG ARENA_RUNTIMES=all
RUN if [ -n "$ARENA_RUNTIMES" ]; then \
        apt-get update \
        && apt-get install -y --no-install-recommends \
            $(arena runtimes --packages "$ARENA_RUNTIMES") \
        && rm -rf /var/lib/apt/lists/*; \
    fi

# The master bot's compiled search (30-44 s to compile against a 15-s start-up allowance),
# built into the installed package, where each master seat copies it from into its sandbox.
# numba keys the cache by CPU model: a worker host whose CPU differs from the build host's
# compiles its own entries once, when its container starts (`arena setup`, the worker
# service's first step), before it takes a job.
RUN python -c "from arena.house.master.cache import warm; s, n = warm(); \
print(f'master search cached: {n} kernels compiled in {s:.0f} s')" \
    && chmod -R o+rX "$(python -c 'import arena.house as h, os; print(os.path.dirname(h.__file__))')"

# Bot archives are fetched from the database; this is only each worker's cache and logs.
ENV ARENA_DATA_DIR=/var/lib/arena
CMD ["arena", "--help"]
