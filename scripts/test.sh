#!/usr/bin/env bash
# Runs agwire's test suite: go vet, then every Go test with the race detector.
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
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
  # Reinstall when the lock file is newer than the installed tree.
  if [[ ! -f interop/node_modules/.package-lock.json || interop/package-lock.json -nt interop/node_modules/.package-lock.json ]]; then
    (cd interop && npm ci --no-audit --no-fund --loglevel=error)
  fi
  if [[ ! -f clients/js/node_modules/.package-lock.json || clients/js/package-lock.json -nt clients/js/node_modules/.package-lock.json ]]; then
    (cd clients/js && npm ci --no-audit --no-fund --loglevel=error)
  fi
elif [[ -n "${CI:-}" ]]; then
  echo "scripts/test.sh: node and npm are required in CI (interop tests run the TypeScript peer)" >&2
  exit 1
fi

unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './interop/node_modules/*'))
if [[ -n "$unformatted" ]]; then
  echo "scripts/test.sh: gofmt would change:" >&2
  echo "$unformatted" >&2
  exit 1
fi

go vet ./...
go test -race -count=1 "$@" ./...

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
browser_lane
