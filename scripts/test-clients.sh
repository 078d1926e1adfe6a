#!/usr/bin/env bash
# CI: the committed clients against a real Herald. Builds Herald, starts it on a loopback port,
# installs each client from its own directory into a throwaway environment (a venv; `npm ci` in a
# copy), then runs each gRPC and REST quickstart and each language's tests (pytest; node's test runner).
# The binary is the debug one `cargo test --no-run` builds beside the integration tests: CI's
# `cargo test` then compiles nothing more, where a `cargo build` would compile Herald a second time
# (the test build has other features and profile).
# Herald runs on its private PostgreSQL cluster in a temporary data directory, which seeds an
# environment and writes its API key; with DATABASE_URL set it uses that database instead, in a new
# organization with a `development` environment and an in-app integration. Needs what Herald needs
# (PostgreSQL server binaries, or DATABASE_URL), curl, python3 (venv) and node 20 with npm; the
# packages come from PyPI and npm. CLIENTS_PORT (default 3197) picks the port.
set -euo pipefail
cd "$(dirname "$0")/.."

port=${CLIENTS_PORT:-3197}
export HERALD_URL="http://127.0.0.1:$port"
herald=${CARGO_TARGET_DIR:-target}/debug/herald

cargo test --no-run
work=$(mktemp -d)
chmod 755 "$work" # as root, Herald runs PostgreSQL as `postgres`, which must reach the cluster inside
pid=
stop() {
  if [ -n "$pid" ]; then
    kill "$pid" 2>/dev/null && { wait "$pid" 2>/dev/null || true; } # SIGTERM: stops the cluster too
  fi
  rm -rf "$work"
}
trap stop EXIT

if [ -n "${DATABASE_URL:-}" ]; then
  HERALD_API_KEY=$("$herald" admin create-environment --organization "herald-clients-$(date +%s)-$$" \
    --name development | sed -n 's/^api key //p')
fi
HERALD_DATA_DIR="$work/data" HERALD_ADDR="127.0.0.1:$port" RUST_LOG=${RUST_LOG:-warn} \
  "$herald" serve >"$work/herald.log" 2>&1 &
pid=$!

for attempt in $(seq 1 600); do # a first start runs initdb: allow up to 60 s
  if [ -z "${DATABASE_URL:-}" ] && [ -s "$work/data/api-key" ]; then
    HERALD_API_KEY=$(head -n1 "$work/data/api-key")
  fi
  if [ -n "${HERALD_API_KEY:-}" ] &&
    curl -sf -o /dev/null -H "Authorization: ApiKey $HERALD_API_KEY" "$HERALD_URL/v1/environments/me"; then
    break
  fi
  if ! kill -0 "$pid" 2>/dev/null || [ "$attempt" = 600 ]; then
    echo "herald did not start:" >&2
    cat "$work/herald.log" >&2
    exit 1
  fi
  sleep 0.1
done
export HERALD_API_KEY
if [ -n "${DATABASE_URL:-}" ]; then # the private cluster's environment is seeded with this one
  curl -sf -o /dev/null -X POST "$HERALD_URL/v1/integrations" -H "Authorization: ApiKey $HERALD_API_KEY" \
    -H 'content-type: application/json' -d '{"providerId": "svc", "channel": "in_app", "active": true}'
fi

echo "== Python client"
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check \
  -r clients/python/requirements-dev.txt ./clients/python
(
  cd clients/python
  "$work/venv/bin/python" examples/quickstart.py
  "$work/venv/bin/python" examples/rest.py
  "$work/venv/bin/python" -m pytest -q -p no:cacheprovider
)

echo "== TypeScript client"
mkdir "$work/typescript"
tar -C clients/typescript --exclude=node_modules --exclude=dist -cf - . | tar -C "$work/typescript" -xf -
(
  cd "$work/typescript"
  npm ci --no-audit --no-fund # its `prepare` compiles the package (tsc), as a consumer's install would
  npm run --silent typecheck  # the examples and tests too
  npm run --silent quickstart
  npm run --silent quickstart:rest
  npm test
)
echo "clients: all passed"
