#!/usr/bin/env bash
# Builds the fuzz targets once, then runs each (or those named) for SECONDS, one after the
# other, from the built binaries (so that editing the sources meanwhile rebuilds nothing), and
# prints one line per target: executions, seconds, and the artifact of a crash if one was found.
# An input that runs over 10 s counts as a crash (a hang), as does one that needs over 2 GB.
# Leak checks are off: a leak is no crash, and checking after every run made anchoring 10x slower.
# Usage: fuzz/run.sh SECONDS [TARGET...]   (needs nightly and `cargo install cargo-fuzz`)
set -uo pipefail
cd "$(dirname "$0")"
seconds=${1:?usage: fuzz/run.sh SECONDS [TARGET...]}
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(anchor_source model_reply edit_hunks operator_file launch_config schema_args)
[ -d corpus ] || ./seed.sh
mkdir -p logs
if [ -z "${NO_BUILD:-}" ]; then
  cargo +nightly fuzz build -O >logs/build.log 2>&1 || { echo "cargo fuzz build failed: fuzz/logs/build.log"; exit 1; }
fi
bin=target/x86_64-unknown-linux-gnu/release
status=0
for t in "${targets[@]}"; do
  extra=()
  [ "$t" = anchor_source ] && extra=(-dict=anchor.dict -max_len=8192)
  # Structured input (files and hunks) from no seeds: long inputs at once, or runs of a few
  # minutes stay under 60 bytes.
  [ "$t" = edit_hunks ] && extra=(-len_control=0 -max_len=2048)
  mkdir -p "corpus/$t" "artifacts/$t"
  "$bin/$t" -artifact_prefix="artifacts/$t/" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -detect_leaks=0 -print_final_stats=1 "${extra[@]}" "corpus/$t" >"logs/$t.log" 2>&1
  rc=$?
  runs=$(grep -oE '^stat::number_of_executed_units: *[0-9]+' "logs/$t.log" | grep -oE '[0-9]+$')
  crash=$(grep -oE 'artifacts/[^ ]*(crash|oom|timeout|leak|slow-unit)-[0-9a-f]+' "logs/$t.log" | head -1)
  echo "$t: ${runs:-?} executions in ${seconds} s, rc=$rc${crash:+, FOUND $crash}"
  [ $rc -eq 0 ] || status=1
done
exit $status
