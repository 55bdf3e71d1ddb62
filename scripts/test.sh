#!/usr/bin/env bash
# The whole test suite from a fresh clone: installs the npm servers it spawns, then runs every
# Rust test (unit, integration against real node servers, snapshot).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v node >/dev/null || { echo "node (>= 20) is required: the tests spawn real MCP servers" >&2; exit 1; }
scripts/install-servers.sh
# --lib --bins --tests: no doc tests, of which there are none (their empty summary would close the log).
cargo test --locked --lib --bins --tests "$@"
