#!/usr/bin/env bash
# Reproduces everything in bench/README.md on this machine: the tests of the
# bench module, the side-by-side, pipeline and growth benchmarks in
# interleaved rounds (Go and the TypeScript peer alternating), the end-to-end
# CLI-vs-node run, the wire sizes, a CPU profile of every benchmark that
# misses its target, benchstat's tables, the SVG plots and the generated
# section of README.md. Raw output goes to bench/results/.
#
#   bench/run.sh                       # COUNT=6 rounds, BENCHTIME=100ms
#   COUNT=1 BENCHTIME=20ms bench/run.sh   # a quick look
#
# PIPELINE_BENCHTIME (20x) is the pipeline benchmark's -test.benchtime per
# round; PROFILE_TIME (1s) that of each profiling run (0: no profiles).
#
# Needs Go; node 20 and npm for the TypeScript peer (skipped without them).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"   # bench/
export GOWORK=off

COUNT="${COUNT:-6}"
BENCHTIME="${BENCHTIME:-100ms}"
E2E_ROUNDS="${E2E_ROUNDS:-5}"
PIPELINE_BENCHTIME="${PIPELINE_BENCHTIME:-20x}"
PROFILE_TIME="${PROFILE_TIME:-1s}"
BENCHSTAT=golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
out=results
mkdir -p "$out" plots
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

have_node=0
if command -v node >/dev/null && command -v npm >/dev/null; then
  have_node=1
  if [[ ! -f ../interop/node_modules/.package-lock.json || ../interop/package-lock.json -nt ../interop/node_modules/.package-lock.json ]]; then
    (cd ../interop && npm ci --no-audit --no-fund --loglevel=error)
  fi
fi

echo "==> tests (corpus valid and round-trips; growth is linear)"
go vet ./...
# A failing growth guard is a finding, not a reason to skip the measurements:
# its output is kept in results/tests.txt and the README links it.
if go test -count=1 -v -run 'TestLinearGrowth|TestCorpusValid' ./... > "$out/tests.txt" 2>&1; then
  echo "tests: ok"
else
  echo "tests: FAILED (see bench/$out/tests.txt)"; grep -E '^\s*(--- FAIL|.*grew)' "$out/tests.txt" || true
fi

echo "==> machine"
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "tree: $(go run ./cmd/benchtool tree)"
  echo "go: $(go version)"
  [[ $have_node == 1 ]] && echo "node: $(node --version)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') ($(nproc) cores)"
  echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "rounds: $COUNT, benchtime: $BENCHTIME, pipeline benchtime: $PIPELINE_BENCHTIME"
} | tee "$out/machine.txt"

go run ./cmd/benchtool data "$tmp/data"
go test -c -o "$tmp/bench.test" .
ms="${BENCHTIME%ms}"; [[ "$ms" =~ ^[0-9]+$ ]] || ms=100

: > "$out/side.txt"; : > "$out/growth.txt"; : > "$out/pipeline.txt"
for round in $(seq "$COUNT"); do
  echo "==> round $round/$COUNT"
  "$tmp/bench.test" -test.run '^$' -test.bench '^BenchmarkSide$' -test.benchtime "$BENCHTIME" -test.benchmem >> "$out/side.txt"
  if [[ $have_node == 1 ]]; then
    node peer/tsbench.mjs bench "$tmp/data" "$ms" 1 >> "$out/side.txt"
  fi
  "$tmp/bench.test" -test.run '^$' -test.bench '^BenchmarkPipeline$' -test.benchtime "$PIPELINE_BENCHTIME" -test.benchmem >> "$out/pipeline.txt"
  "$tmp/bench.test" -test.run '^$' -test.bench '^BenchmarkGrowth$' -test.benchtime "$BENCHTIME" -test.benchmem >> "$out/growth.txt"
done

echo "==> wire sizes"
go run ./cmd/benchtool sizes | tee "$out/sizes.md"

if [[ $have_node == 1 ]]; then
  echo "==> end to end: agwire CLI vs node"
  go build -o "$tmp/agwire" ../cmd/agwire
  go run ./cmd/benchtool e2e "$tmp/agwire" "$tmp/data" "$E2E_ROUNDS" | tee "$out/e2e.md"
else
  rm -f "$out/e2e.md"   # not a previous run's figures under this run's verdicts
fi

echo "==> CPU profiles of the benchmarks that miss their target"
# benchtool missed prints "pattern<TAB>file" for each missed row of the
# README's Targets tables; the report links each file from its row.
rm -f "$out"/profile-*.txt
if [[ $PROFILE_TIME != 0 ]]; then
  go run ./cmd/benchtool missed "$out/side.txt" "$out/pipeline.txt" > "$tmp/missed.txt"
  while IFS=$'\t' read -r bench file; do
    echo "$file"
    "$tmp/bench.test" -test.run '^$' -test.bench "$bench" -test.benchtime "$PROFILE_TIME" -test.benchmem \
      -test.cpuprofile "$tmp/cpu.prof" < /dev/null > "$tmp/profiled.txt" 2>&1 || true
    {
      echo "# -test.bench '$bench' -test.benchtime $PROFILE_TIME -test.cpuprofile, then go tool pprof -top -nodecount=25 (the profile includes the benchmark's setup)"
      if grep '^Benchmark' "$tmp/profiled.txt"; then
        go tool pprof -top -nodecount=25 "$tmp/bench.test" "$tmp/cpu.prof" < /dev/null
      else
        echo "no profile: the benchmark did not run"; cat "$tmp/profiled.txt"
      fi
    } > "$out/$file"
  done < "$tmp/missed.txt"
fi

echo "==> benchstat"
go run "$BENCHSTAT" -row /case -col /impl -filter '/op:Encode' "$out/side.txt" > "$out/benchstat-encode.txt"
go run "$BENCHSTAT" -row /case -col /impl -filter '/op:Decode' "$out/side.txt" > "$out/benchstat-decode.txt"
go run "$BENCHSTAT" "$out/growth.txt" > "$out/benchstat-growth.txt"

echo "==> README tables and plots"
go run ./cmd/benchtool report README.md plots "$out/side.txt" "$out/growth.txt" "$out/pipeline.txt"
echo "done: bench/README.md, bench/plots/, bench/results/"
