#!/usr/bin/env bash
# Runs agwire's test suite: go vet, then every Go test with the race detector.
#
# The interop tests drive the real TypeScript peer, pinned in interop/; this
# script installs it with `npm ci` when node is available. Without node those
# tests skip — except under CI (CI=1), where a missing node is a failure.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
  # Reinstall when the lock file is newer than the installed tree.
  if [[ ! -f interop/node_modules/.package-lock.json || interop/package-lock.json -nt interop/node_modules/.package-lock.json ]]; then
    (cd interop && npm ci --no-audit --no-fund --loglevel=error)
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
