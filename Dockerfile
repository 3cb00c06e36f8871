# One image for every platform service: the migration job, the beat, the workers and the
# dashboard (docker-compose.yml; docs/deploy.md).
# Both bases pinned to a release (a rebuild months later gets the same Python and Node);
# bookworm: the toolchain table names Debian 12 packages. Debian 12's own nodejs is 18,
# and the sample bots' manifests ask for node20: Node comes from the official image.
ARG PYTHON_IMAGE=python:3.11.13-slim-bookworm
ARG NODE_IMAGE=node:20.19.2-bookworm-slim
FROM ${NODE_IMAGE} AS node

FROM ${PYTHON_IMAGE}

# bubblewrap and util-linux (prlimit, setpriv, mount): the bot sandbox; procps: its sweeps.
RUN apt-get update \
    && apt-get install -y --no-install-recommends bubblewrap util-linux procps \
    && rm -rf /var/lib/apt/lists/*

# Node.js and npm, where the sandbox's view and `arena runtimes` look first (/usr/local/bin).
# The build stops here if this Node is older than the node20 the sample bots ask for.
COPY --from=node /usr/local/bin/node /usr/local/bin/node
COPY --from=node /usr/local/lib/node_modules /usr/local/lib/node_modules
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
    && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
    && node -e 'const v = process.versions.node; if (+v.split(".")[0] < 20) { console.error("node " + v + " < 20"); process.exit(1); }' \
    && npm --version

WORKDIR /app
COPY . /app
RUN pip install --no-cache-dir /app \
    && (cd sample_bots/js_lowcard && npm ci --no-audit --no-fund --silent) \
    && chmod -R o+rX /app

# The bots' toolchains, from the platform's table (`arena runtimes`): each worker builds and
# plays the bots of the toolchains its image has. ARENA_RUNTIMES=c,go (say) makes a smaller
# image; "" none beyond Python and Node. Node is the one above, never Debian's nodejs/npm.
ARG ARENA_RUNTIMES=all
RUN if [ -n "$ARENA_RUNTIMES" ]; then \
        packages="$(arena runtimes --packages "$ARENA_RUNTIMES" | tr ' ' '\n' | grep -vxE 'nodejs|npm' | tr '\n' ' ')" \
        && apt-get update \
        && apt-get install -y --no-install-recommends $packages \
        && rm -rf /var/lib/apt/lists/*; \
    fi \
    && python -c "from arena.bots.runtimes import runtime_problem as p; \
problem = p('node20'); assert problem is None, problem" \
    && arena runtimes

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
