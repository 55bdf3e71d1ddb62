#!/usr/bin/env bash
# Installs the pinned npm packages the tests and demos run: the fixture servers' dependencies and
# the real servers of servers-npm/. --ignore-scripts: some install scripts download browsers,
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
