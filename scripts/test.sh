#!/usr/bin/env bash
# Runs agwire's test suite: go vet, then every Go test with the race detector,
# then the browser lane.
#
# The interop tests drive the real TypeScript peer, pinned in interop/, and
# the JavaScript companion's node tests (clients/js, run by
# interop/jsclient_test.go); this script installs both with `npm ci` when
# node is available. Without node those tests skip — except under CI (CI=1),
# where a missing node is a failure.
#
# The browser lane (interop/browser, a nested module) needs Debian's
# chromium: installed here when this runs as root or with passwordless sudo
# (and AGWIRE_NO_BROWSER is unset); otherwise it is skipped, loudly.
#
# Every stage line says how many seconds the script has run ("==> [test.sh
# 42s] ..."), and while the Go tests run a line every 60 s names the test
# binaries still running, so a slow machine is never silent for long. A
# failing step does not stop the steps after it: the browser lane runs, and
# reports, whatever came before; the script exits non-zero if any step
# failed, naming each.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

start=$SECONDS
stage() { echo "==> [test.sh $((SECONDS - start))s] $*"; }
failed=()
fail() { failed+=("$1"); echo "!!! [test.sh $((SECONDS - start))s] FAILED: $1" >&2; }

if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
  # Reinstall when the lock file is newer than the installed tree.
  for dir in interop clients/js; do
    if [[ ! -f $dir/node_modules/.package-lock.json || $dir/package-lock.json -nt $dir/node_modules/.package-lock.json ]]; then
      stage "npm ci in $dir"
      (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) || fail "npm ci in $dir"
    fi
  done
elif [[ -n "${CI:-}" ]]; then
  echo "scripts/test.sh: node and npm are required in CI (interop tests run the TypeScript peer)" >&2
  exit 1
fi

stage "gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path '*/node_modules/*'))
if [[ -n "$unformatted" ]]; then
  echo "scripts/test.sh: gofmt would change:" >&2
  echo "$unformatted" >&2
  fail "gofmt"
fi

stage "go vet ./..."
go vet ./... || fail "go vet"

# progress names the test binaries that go test ($1) runs now, every 60 s,
# until it is killed.
progress() {
  while sleep 60; do
    running=$(ps -o args= --ppid "$1" 2>/dev/null | awk '$1 ~ /\.test$/ { n = split($1, p, "/"); print p[n] }' | sort -u | tr '\n' ' ')
    echo "... [test.sh $((SECONDS - start))s] still testing; running now: ${running:-(compiling)}"
  done
}
stage "go test -race -count=1 $* ./..."
go test -race -count=1 "$@" ./... &
test_pid=$!
progress "$test_pid" &
progress_pid=$!
wait "$test_pid" || fail "go test -race ./..."
kill "$progress_pid" 2>/dev/null
wait "$progress_pid" 2>/dev/null

# --- the browser lane (interop/browser) -------------------------------------
# .ci/run installs chromium itself, in the background, and runs this lane
# later (AGWIRE_BROWSER_LANE=defer); otherwise chromium is installed here when
# that is possible.
browser_lane() {
  if [[ "${AGWIRE_BROWSER_LANE:-}" == defer ]]; then
    echo "scripts/test.sh: the browser lane runs later (AGWIRE_BROWSER_LANE=defer)"
    return 0
  fi
  if [[ ! -x /usr/bin/chromium && -z "${AGWIRE_CHROMIUM:-}" && -z "${AGWIRE_NO_BROWSER:-}" ]]; then
    local sudo=""
    if [[ $(id -u) -ne 0 ]] && sudo -n true 2>/dev/null; then sudo="sudo -n"; fi
    if [[ $(id -u) -eq 0 || -n "$sudo" ]] && command -v apt-get >/dev/null 2>&1; then
      echo "scripts/test.sh: installing chromium for the browser lane (apt-get)"
      $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null || true
    fi
  fi
  if [[ ! -x /usr/bin/chromium && -z "${AGWIRE_CHROMIUM:-}" ]]; then
    if [[ -n "${CI:-}" ]]; then
      echo "scripts/test.sh: chromium is required in CI (the browser lane, interop/browser)" >&2
      return 1
    fi
    echo "!!! scripts/test.sh: BROWSER LANE SKIPPED: chromium is not installed and cannot be installed here (apt-get install chromium, then rerun)" >&2
    return 0
  fi
  (cd interop/browser && go vet ./... && go test -count=1)
}
stage "browser lane (interop/browser)"
browser_lane || fail "browser lane (interop/browser)"

if ((${#failed[@]} > 0)); then
  stage "done, with failures:"
  printf '  %s\n' "${failed[@]}" >&2
  exit 1
fi
stage "done, all passed"
