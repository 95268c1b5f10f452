#!/usr/bin/env bash
# Regenerates codec/testdata/golden-peer-1.0.0.jsonl by running the pinned
# reference peer (@ag-ui/proto@1.0.0 and friends) over fixtures/events.jsonl.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"

if [ ! -d node_modules ]; then
  npm ci --no-audit --no-fund
fi

node peer.mjs golden fixtures/events.jsonl ../codec/testdata/golden-peer-1.0.0.jsonl
