#!/usr/bin/env bash
# The whole test suite from a fresh clone: installs the servers it spawns, then runs every Rust
# test (unit, integration against real node and Python servers, snapshot).
#
#   scripts/test.sh            what CI runs: the long sweeps sampled (under 15 minutes on 2 cores)
#   scripts/test.sh --sweep    the long sweeps whole, as before an issue is closed
#   scripts/test.sh --quick    for iterating: the long tests left out (about five minutes)
#
# Arguments after the flag go to `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v node >/dev/null || { echo "node (>= 20) is required: the tests spawn real MCP servers" >&2; exit 1; }

mode=full
case "${1:-}" in
  --quick) mode=quick; shift ;;
  # Every operator on every registration style (JavaScript and Python), every real npm server
  # and three PyPI ones to v5, every planted defect of the oracle's mutation suite. Without it,
  # each sweep runs a sample that still spawns real servers (`whole_sweep` in
  # tests/common/mod.rs).
  --sweep) export MCPEVOL_TEST_SWEEP=1; shift ;;
esac
targets=(--lib --bins --tests)
# --quick: the unit tests and the integration tests except the long ones: those that evolve
# the real servers of servers-npm/ and servers-pypi/ for several rounds, the oracle's mutation
# suite and its per-operator checks, the batch, crash, browser, deploy, report and model-backend
# runs, every operator on every fixture style, the releases, call planning, defaults, drift,
# export and pip runs, and tests/faults.rs (one fault at a time).
[ "$mode" = quick ] && targets=(--lib --bins --test it)

# Compile while the npm servers and the Python fixtures install: the build is CPU, npm and uv
# mostly network and disk.
cargo test --locked --quiet --workspace "${targets[@]}" --no-run &
build=$!
MCPEVOL_PYPI=skip scripts/install-servers.sh
wait "$build"
# The PyPI servers the suite spawns (tests/it/evolve_pypi.rs, which --quick leaves out), not
# all 15 of servers-pypi/ (each takes seconds of bytecode compiling), with the binary the test
# build made.
[ "$mode" = quick ] || target/debug/mcpevol install servers-pypi/servers.toml --only time,sqlite,duckduckgo

# tests/report.rs opens the HTML report in Debian's chromium, headless; without it that check is
# skipped with a loud message.
if ! command -v chromium >/dev/null && command -v apt-get >/dev/null; then
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } ||
    echo "WARNING: cannot install chromium; the browser check of the HTML report will be skipped" >&2
fi

# Three tests at a time on two cores: with the sweeps sampled, a fifth of the CPU stood idle at
# two (vmstat, mean of 5 s samples), the tests waiting on servers' timeouts and on the 2.5 s
# between a previous-version call's two samples. RUST_TEST_THREADS set by the caller wins.
export RUST_TEST_THREADS=${RUST_TEST_THREADS:-3}
if [ "$mode" = quick ]; then
  # Every unit test (seconds), then the integration tests less the long ones: the skips name
  # integration modules, and some unit-test modules share their names.
  cargo test --locked --workspace --lib --bins "$@"
  exec cargo test --locked --test it "$@" -- \
    --skip evolve_npm:: --skip evolve_pypi:: --skip evolve_unseen:: --skip servers_npm:: \
    --skip drift_npm:: --skip mutants:: --skip oracle:: --skip proof:: --skip browser:: \
    --skip batch:: --skip crash:: --skip deploy:: --skip report:: --skip evolve_llm \
    --skip content:: --skip evolve::every_operator --skip release:: --skip calls:: \
    --skip defaults:: --skip drift:: --skip export:: --skip pypi_install::
fi
# tests/faults.rs spends most of its minute waiting on its misbehaving servers' timeouts, one
# fault at a time (the CPU stood 70-100% idle): it runs beside the other tests, not after them,
# its output printed when they are done. Its own process is its own: its descriptor counts and
# its servers' marker see nothing of the other binary's.
faults=$(cargo test --locked --quiet --test faults --no-run --message-format=json |
  grep -o '"executable":"[^"]*faults-[^"]*"' | cut -d'"' -f4)
faults_log=$(mktemp)
trap 'rm -f "$faults_log"' EXIT
"$faults" >"$faults_log" 2>&1 &
faults_pid=$!
status=0
# --lib --bins: no doc tests, of which there are none (their empty summary would close the log).
cargo test --locked --workspace --lib --bins --test it "$@" || status=$?
faults_status=0
wait "$faults_pid" || faults_status=$?
echo "tests/faults.rs, run beside the others:"
cat "$faults_log"
[ "$faults_status" = 0 ] || { echo "tests/faults.rs failed (exit $faults_status)" >&2; status=1; }
exit "$status"
