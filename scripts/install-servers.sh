#!/usr/bin/env bash
# Installs the pinned packages the tests and demos run: the fixture servers' dependencies,
# the real servers of servers-npm/ and of servers-pypi/. npm: --ignore-scripts: some install scripts download browsers,
# which cannot work offline and is never needed to list or call tools.
set -euo pipefail
cd "$(dirname "$0")/.."
for dir in fixtures servers-npm; do
  # npm ci reinstalls from scratch; skip it when the lockfile is already what is installed.
  if [ -f "$dir/node_modules/.package-lock.json" ] && [ "$dir/node_modules/.package-lock.json" -nt "$dir/package-lock.json" ]; then
    echo "$dir: node_modules is up to date"
  else
    echo "$dir: npm ci"
    (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  fi
done
# The real PyPI servers of servers-pypi/: one virtual environment per release under
# servers-pypi/installed/, dependencies resolved as of the release's upload date. uv does that
# (and fast); it comes from PyPI when it is missing. Installed releases are skipped.
command -v python3 >/dev/null || { echo "python3 (>= 3.10) is required: the tests spawn real Python MCP servers" >&2; exit 1; }
if ! command -v uv >/dev/null && ! python3 -m uv --version >/dev/null 2>&1; then
  echo "servers-pypi: installing uv from PyPI"
  # A distribution's own Python may refuse installs outside a venv (PEP 668).
  python3 -m pip install --quiet uv || python3 -m pip install --quiet --break-system-packages uv ||
    echo "WARNING: cannot install uv; Python servers are installed with pip, with today's dependencies" >&2
fi
# The Python fixtures' environment (their `.venv` links point at it).
if [ ! -x fixtures/python/.venv/bin/python ]; then
  echo "fixtures/python: making .venv"
  if command -v uv >/dev/null || python3 -m uv --version >/dev/null 2>&1; then
    uv_cmd=(uv); command -v uv >/dev/null || uv_cmd=(python3 -m uv)
    "${uv_cmd[@]}" venv --quiet --relocatable --python python3 fixtures/python/.venv
    "${uv_cmd[@]}" pip install --quiet --compile-bytecode --python fixtures/python/.venv/bin/python \
      --exclude-newer 2025-09-26T00:00:00Z -r fixtures/python/requirements.txt
  else
    python3 -m venv fixtures/python/.venv
    fixtures/python/.venv/bin/python -m pip install --quiet -r fixtures/python/requirements.txt
  fi
else
  echo "fixtures/python: .venv is installed"
fi
# MCPEVOL_PYPI=skip: scripts/test.sh installs the PyPI servers itself, with the binary its test
# build makes (a `cargo build` here would compile the crates again with other features).
[ "${MCPEVOL_PYPI:-}" = skip ] && exit 0
cargo build --locked --quiet --bin mcpevol
target/debug/mcpevol install servers-pypi/servers.toml
