#!/usr/bin/env bash
# Regenerates the Go protobuf types in gen/aguipb (AG-UI 1.0) and gen/aguipb11
# (1.1) from the schemas in proto/,
# then the code internal/codecgen generates from package event's field tables
# (go generate ./codec): codec/coders_gen.go, event/json_gen.go, clients/js/decode.gen.js and the name
# sets both use, internal/schema/names_gen.go.
#
# Needs nothing but Go and access to the module proxy:
#   - buf is built from the separate tools module (tools/go.mod) by
#     scripts/buf.sh, so its large dependency tree never reaches users of the
#     library;
#   - protoc-gen-go runs via "go run" inside the root module (see buf.gen.yaml),
#     so it is always the same version as the protobuf runtime the generated
#     code compiles against.
# The first run builds buf from source, which takes a few minutes and shows
# its progress; later runs reuse the binary (see scripts/buf.sh).
#
# Output is generated into a temporary directory and only then moved into
# gen/aguipb, so a failed run leaves the tree untouched and a deleted .proto
# file does not leave a stale .pb.go behind.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

# -modfile cannot be combined with a go.work, and a workspace could also pull a
# different protobuf version into the generator; always use plain module mode.
export GOWORK=off

buf() { scripts/buf.sh "$@"; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

buf generate --template buf.gen.yaml --output "$tmp"

# gen/aguipb is the 1.0 wire (proto/ag_ui), gen/aguipb11 the 1.1 wire
# (proto/ag_ui/v1_1).
for pkg in aguipb aguipb11; do
  if [[ ! -d "$tmp/gen/$pkg" ]]; then
    echo "generate.sh: buf produced no gen/$pkg directory" >&2
    exit 1
  fi
  mkdir -p "gen/$pkg"
  rm -f "gen/$pkg"/*.pb.go
  cp "$tmp/gen/$pkg"/*.pb.go "gen/$pkg/"
done

go generate ./codec
