#!/usr/bin/env bash
# CI: the committed clients against a real Herald. Builds Herald, starts it on a loopback port,
# installs each client from its own directory into a throwaway environment (a venv; `npm ci` in a
# copy), then runs each gRPC and REST quickstart and each language's tests (pytest; node's test runner).
# scripts/start-herald.sh builds and starts Herald (the debug binary, on its private PostgreSQL
# cluster, or in a new organization of DATABASE_URL's database, given an in-app integration here).
# Needs what Herald needs (PostgreSQL server binaries, or DATABASE_URL), curl, python3 (venv) and
# node 20 with npm; the packages come from PyPI and npm. CLIENTS_PORT (default 3197) picks the port.
set -euo pipefail
cd "$(dirname "$0")/.."

port=${CLIENTS_PORT:-3197}
organization=herald-clients
# shellcheck source=scripts/start-herald.sh
source scripts/start-herald.sh
export HERALD_URL=$url
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
