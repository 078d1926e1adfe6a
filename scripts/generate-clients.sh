#!/usr/bin/env bash
# Regenerates every committed client from proto/: Python (grpcio-tools, which bundles protoc) into
# clients/python/src/herald/v1, TypeScript (buf + protoc-gen-es) into clients/typescript/src/gen.
# The tools come from PyPI and npm only, pinned in clients/python/requirements-dev.txt and
# clients/typescript/package-lock.json. With --check, fails when the committed code differs from
# what the protos generate (CI runs that).
set -euo pipefail
cd "$(dirname "$0")/.."

python_dir=clients/python
typescript_dir=clients/typescript

# A venv of the pinned generator, reused between runs (ignored by git).
venv=$python_dir/.venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$python_dir/requirements-dev.txt"

out=$python_dir/src
rm -f "$out"/herald/v1/*_pb2*.py "$out"/herald/v1/*_pb2*.pyi
"$venv/bin/python" -m grpc_tools.protoc -I proto \
  --python_out="$out" --pyi_out="$out" --grpc_python_out="$out" proto/herald/v1/*.proto

if [ ! -x "$typescript_dir/node_modules/.bin/buf" ]; then
  (cd "$typescript_dir" && npm ci --no-audit --no-fund --ignore-scripts)
fi
(cd "$typescript_dir" && npm run --silent generate)

if [ "${1:-}" = --check ]; then
  stale=$(git status --porcelain -- "$python_dir/src" "$typescript_dir/src/gen")
  if [ -n "$stale" ]; then
    echo "The committed generated clients are stale; run scripts/generate-clients.sh and commit:" >&2
    echo "$stale" >&2
    git --no-pager diff --stat -- "$python_dir/src" "$typescript_dir/src/gen" >&2
    exit 1
  fi
  echo "generated clients are up to date"
fi
