#!/usr/bin/env bash
# CI: `buf lint` of proto/ and `buf breaking` against the protos of the previous commit (or of
# $PROTO_BASE, e.g. the merge base of a branch), with the rules of buf.yaml. buf comes from npm
# (@bufbuild/buf, pinned in clients/typescript/package-lock.json); it reads the old protos from
# the local git history, so no network is needed beyond npm.
set -euo pipefail
cd "$(dirname "$0")/.."

buf=clients/typescript/node_modules/.bin/buf
if [ ! -x "$buf" ]; then
  (cd clients/typescript && npm ci --no-audit --no-fund --ignore-scripts)
fi

"$buf" lint
echo "buf lint: clean"

base=${PROTO_BASE:-HEAD~1}
if ! git rev-parse --quiet --verify "$base^{commit}" >/dev/null; then
  # A first commit or a shallow clone has nothing to compare with; say so rather than pass silently.
  echo "buf breaking: skipped, $base is not in this clone (fetch more history or set PROTO_BASE)" >&2
  exit 0
fi
if [ -z "$(git ls-tree -d "$base" proto)" ]; then
  echo "buf breaking: skipped, $base has no proto/" >&2
  exit 0
fi
"$buf" breaking --against ".git#ref=$(git rev-parse "$base"),subdir=proto"
echo "buf breaking: no wire or JSON change against $base"
