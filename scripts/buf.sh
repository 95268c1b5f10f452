#!/usr/bin/env bash
# Runs the pinned buf (tools/go.mod) with the given arguments, building it
# first when this machine has no binary of that exact version yet.
#
#   scripts/buf.sh lint
#   scripts/buf.sh --build     # only build (CI starts this early, in the background)
#
# buf is built from source with the Go toolchain, so nothing but Go and the
# module proxy is needed, and the version is the one tools/go.sum pins. A
# cold build compiles about 650 packages (a few minutes on 2 cores); it
# prints a progress line every 50 packages instead of going silent. The
# binary is kept in the Go build cache directory, under a name made from
# the hash of tools/go.mod and tools/go.sum, so any change of the pin builds
# a new one and "go clean -cache" (or an empty GOCACHE) starts over.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
export GOWORK=off

cache="$(go env GOCACHE)"
if [[ -z "$cache" || "$cache" == off ]]; then
  cache="${TMPDIR:-/tmp}"
fi
pin="$(cat tools/go.mod tools/go.sum | sha256sum | cut -c1-16)"
bin="$cache/agwire-tools/buf-$pin"

build() {
  mkdir -p "$(dirname "$bin")"
  local total
  total="$(cd tools && go list -mod=readonly -deps github.com/bufbuild/buf/cmd/buf | wc -l | tr -d ' ')"
  echo "scripts/buf.sh: building the pinned buf ($total packages, most of them once per machine)"
  local tmp="$bin.tmp.$$"
  # go build -v names each package as it is compiled (cached ones are not
  # named); count them on one progress line every 50.
  (cd tools && go build -mod=readonly -v -ldflags='-s -w' -o "$tmp" github.com/bufbuild/buf/cmd/buf) 2>&1 |
    awk -v total="$total" '
      /^[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~+-]+)*$/ { n++; if (n % 50 == 0) printf "scripts/buf.sh: buf: %d of at most %d packages compiled\n", n, total; fflush(); next }
      { print; fflush() }'
  local status="${PIPESTATUS[0]}"
  if [[ "$status" != 0 || ! -x "$tmp" ]]; then
    rm -f "$tmp"
    echo "scripts/buf.sh: building buf failed" >&2
    exit 1
  fi
  mv -f "$tmp" "$bin"
  echo "scripts/buf.sh: buf built: $("$bin" --version)"
}

if [[ ! -x "$bin" ]]; then
  build
fi
if [[ "${1:-}" == --build ]]; then
  exit 0
fi
exec "$bin" "$@"
