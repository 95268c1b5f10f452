#!/usr/bin/env bash
# CI check for the protobuf schema and its generated code:
#   1. buf lint passes on proto/;
#   2. regenerating gen/ and the files internal/codecgen writes
#      (codec/coders_gen.go, event/json_gen.go, internal/schema/names_gen.go,
#      clients/js/decode.gen.js)
#      changes nothing compared with the committed tree (HEAD): no modified, deleted
#      or new files;
#   3. the generated package builds against the root module's runtime.
#
# Usage: scripts/check-generated.sh [--allow-untracked]
#
# Run it on a committed tree. --allow-untracked tolerates generated files that
# exist but are not yet tracked by git (useful before gen/ is first committed);
# their content is still regenerated, but cannot be compared with anything.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
export GOWORK=off

allow_untracked=0
for arg in "$@"; do
  case "$arg" in
    --allow-untracked) allow_untracked=1 ;;
    -h|--help)
      sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "check-generated.sh: unknown argument: $arg" >&2
      exit 2
      ;;
  esac
done

echo "==> buf lint"
scripts/buf.sh lint

echo "==> scripts/generate.sh"
scripts/generate.sh

# The files internal/codecgen writes (codec/generate.go names them).
codecgen_out=(codec/coders_gen.go event/json_gen.go internal/schema/names_gen.go clients/js/decode.gen.js)

echo "==> comparing gen/ and ${codecgen_out[*]} with HEAD"
failed=0

# Tracked files that differ from HEAD (staged or not), including deletions.
if ! git diff --exit-code --quiet HEAD -- gen/ "${codecgen_out[@]}"; then
  git diff --stat HEAD -- gen/ "${codecgen_out[@]}"
  echo "check-generated.sh: generated code is out of date." >&2
  failed=1
fi

# Generated files git does not know about at all (git diff does not see
# them: a new file, such as a codecgen output HEAD lacks).
untracked="$(git ls-files --others --exclude-standard -- gen/ "${codecgen_out[@]}")"
if [[ -n "$untracked" ]]; then
  git status --porcelain --untracked-files=all -- gen/ "${codecgen_out[@]}"
  if [[ "$allow_untracked" == 1 ]]; then
    echo "check-generated.sh: warning: untracked generated files (allowed by --allow-untracked)." >&2
  else
    echo "check-generated.sh: generated files are not committed." >&2
    failed=1
  fi
fi

if [[ "$failed" != 0 ]]; then
  echo "check-generated.sh: FAILED. Run scripts/generate.sh and commit the result." >&2
  exit 1
fi

echo "==> go build ./gen/..."
go build ./gen/...

echo "check-generated.sh: OK"
