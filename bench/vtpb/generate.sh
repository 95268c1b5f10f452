#!/usr/bin/env bash
# Regenerates bench/vtpb: the AG-UI schema of proto/ with vtprotobuf's
# generated MarshalVT/UnmarshalVT/SizeVT methods, for the benchmarks only.
#
# The schema is copied with its protobuf package renamed from ag_ui to
# ag_ui_vt (and its files to agwire_bench_vt/*.proto). A package name never
# reaches the wire, so the bytes are exactly those of ag_ui.Event; the rename
# only lets these types and gen/aguipb be linked into one test binary without
# a protobuf registry conflict. Field numbers, types and labels are untouched.
#
# buf comes from tools/go.mod (the first run builds it: a few minutes).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."   # bench/
export GOWORK=off

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/agwire_bench_vt" "$tmp/out"
for f in ../proto/ag_ui/*.proto; do
  sed -e 's/^package ag_ui;/package ag_ui_vt;/' \
      -e 's|^import "ag_ui/|import "agwire_bench_vt/|' \
      -e 's|^option go_package = .*|option go_package = "github.com/agwire/agwire/bench/vtpb";|' \
      "$f" > "$tmp/src/agwire_bench_vt/$(basename "$f")"
done

go tool -modfile=../tools/go.mod buf generate "$tmp/src" --template vtpb/buf.gen.yaml --output "$tmp/out"

rm -f vtpb/*.pb.go
cp "$tmp"/out/vtpb/*.go vtpb/
