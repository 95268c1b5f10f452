#!/usr/bin/env bash
# Runs the pinned buf (tools/go.mod) with the given arguments, building it
# first when this machine has no binary of that exact version yet.
#
#   scripts/buf.sh lint
#   scripts/buf.sh --build     # only build (CI starts this early, in the background)
#
# The version is the one tools/go.mod pins. Two ways to get it:
#
#   - with npm: the publisher's prebuilt binary of that same release
#     (@bufbuild/buf on the npm registry, locked with its integrity hash in
#     tools/buf-npm/package-lock.json); a few seconds. The lock must name the
#     version tools/go.mod pins, and the installed binary must report it, or
#     the script stops.
#   - otherwise (no npm, or AGWIRE_BUF_FROM_SOURCE=1): built from source with
#     the Go toolchain, so nothing but Go and the module proxy is needed. A
#     cold build compiles about 650 packages (a few minutes on 2 cores); it
#     prints a progress line every 50 packages instead of going silent.
#
# Either binary is kept in the Go build cache directory, under a name made
# from the hash of tools/go.mod, tools/go.sum and the npm lock, so any change
# of the pin fetches or builds a new one and "go clean -cache" (or an empty
# GOCACHE) starts over.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
export GOWORK=off

cache="$(go env GOCACHE)"
if [[ -z "$cache" || "$cache" == off ]]; then
  cache="${TMPDIR:-/tmp}"
fi
pin="$(cat tools/go.mod tools/go.sum tools/buf-npm/package-lock.json | sha256sum | cut -c1-16)"
bin="$cache/agwire-tools/buf-$pin"
version="$(awk '$1 == "github.com/bufbuild/buf" { sub(/^v/, "", $2); print $2 }' tools/go.mod)"
if [[ -z "$version" ]]; then
  echo "scripts/buf.sh: tools/go.mod pins no github.com/bufbuild/buf version" >&2
  exit 1
fi

# fetch installs the prebuilt release with npm ci from the committed lock.
fetch() {
  local locked
  locked="$(node -e 'const l=require(process.argv[1]); process.stdout.write(l.packages["node_modules/@bufbuild/buf"].version)' "$PWD/tools/buf-npm/package-lock.json")"
  if [[ "$locked" != "$version" ]]; then
    echo "scripts/buf.sh: tools/buf-npm/package-lock.json locks buf $locked but tools/go.mod pins $version; update the lock (cd tools/buf-npm && npm install @bufbuild/buf@$version)" >&2
    exit 1
  fi
  local dir="$bin.npm.$$"
  rm -rf "$dir"
  mkdir -p "$dir"
  cp tools/buf-npm/package.json tools/buf-npm/package-lock.json "$dir/"
  echo "scripts/buf.sh: fetching the prebuilt buf $version (npm ci, tools/buf-npm)"
  if ! (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >&2); then
    rm -rf "$dir"
    return 1
  fi
  local exe
  exe="$(find "$dir/node_modules/@bufbuild" -path '*/bin/buf' -type f -not -path '*/@bufbuild/buf/bin/*' | head -n1)"
  if [[ -z "$exe" || ! -x "$exe" ]]; then
    echo "scripts/buf.sh: npm installed no binary of buf for this platform" >&2
    rm -rf "$dir"
    return 1
  fi
  local got
  got="$("$exe" --version)"
  if [[ "$got" != "$version" ]]; then
    echo "scripts/buf.sh: the prebuilt buf reports $got, not the pinned $version" >&2
    rm -rf "$dir"
    exit 1
  fi
  mkdir -p "$(dirname "$bin")"
  cp "$exe" "$bin.tmp.$$"
  mv -f "$bin.tmp.$$" "$bin"
  rm -rf "$dir"
  echo "scripts/buf.sh: buf $got ready (prebuilt)"
}

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
  if [[ -z "${AGWIRE_BUF_FROM_SOURCE:-}" ]] && command -v npm >/dev/null 2>&1 && command -v node >/dev/null 2>&1; then
    fetch || { echo "scripts/buf.sh: the prebuilt buf could not be fetched; building it from source" >&2; build; }
  else
    build
  fi
fi
if [[ "${1:-}" == --build ]]; then
  exit 0
fi
exec "$bin" "$@"
