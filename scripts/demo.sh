#!/usr/bin/env bash
# The main job end to end, with no network beyond npm and no API key: take a real npm MCP server
# (default: @modelcontextprotocol/server-memory from servers-npm/), make it a workspace (v0),
# evolve it 5 rounds with the rules backend, and print the log. The workspace is left in
# target/demo/ for `git log -p`, `mcpevol diff`, and the stage tags early/middle/late.
set -euo pipefail
cd "$(dirname "$0")/.."
package="${1:-@modelcontextprotocol/server-memory}"
seed="${2:-7}"
scripts/install-servers.sh
# The first release build takes minutes on two cores: cargo's own progress lines say how far it
# is (only warnings are kept quiet).
echo "building mcpevol (release; the first build takes a few minutes)..." >&2
cargo build --release --locked
mcpevol=target/release/mcpevol
mkdir -p target/demo
work="$(mktemp -d target/demo/evolved-XXXXXX)"
rmdir "$work"
"$mcpevol" init "servers-npm/node_modules/$package" "$work" --env 'MEMORY_FILE_PATH={tmp}/memory.json'
"$mcpevol" evolve "$work" --rounds 5 --seed "$seed"
"$mcpevol" log "$work"
echo
echo "workspace: $work   (try: git -C $work log --stat early..late; $mcpevol diff $work early late)"
