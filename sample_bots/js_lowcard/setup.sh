#!/usr/bin/env bash
# Install the sample bot's dependencies (node_modules is not committed) exactly as
# pinned in package-lock.json. Run from anywhere: bash sample_bots/js_lowcard/setup.sh
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund
