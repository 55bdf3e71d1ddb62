#!/usr/bin/env bash
# Runs every fuzz target (or those named after the duration) for SECONDS each, one after the
# other, and prints one line per target: executions, seconds, and whether it found a crash.
# Usage: fuzz/run.sh SECONDS [TARGET...]   (needs nightly and `cargo install cargo-fuzz`)
set -uo pipefail
cd "$(dirname "$0")"
seconds=${1:?usage: fuzz/run.sh SECONDS [TARGET...]}
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(anchor_source model_reply edit_hunks operator_file launch_config schema_args)
[ -d corpus ] || ./seed.sh
mkdir -p logs
cargo +nightly fuzz build -O >/dev/null 2>&1 || { echo "cargo fuzz build failed"; exit 1; }
status=0
for t in "${targets[@]}"; do
  extra=()
  [ "$t" = anchor_source ] && extra=(-dict=anchor.dict -max_len=8192)
  mkdir -p "corpus/$t"
  cargo +nightly fuzz run -O "$t" -- -max_total_time="$seconds" "${extra[@]}" >"logs/$t.log" 2>&1
  rc=$?
  done_line=$(grep -E '^Done [0-9]+ runs' "logs/$t.log" | tail -1)
  crash=$(grep -oE 'artifacts/[^ ]*(crash|oom|timeout|leak)-[0-9a-f]+' "logs/$t.log" | head -1)
  echo "$t: ${done_line:-no Done line} rc=$rc ${crash:+FOUND $crash}"
  [ $rc -eq 0 ] || status=1
done
exit $status
