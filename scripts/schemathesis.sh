#!/usr/bin/env bash
# CI: the OpenAPI document against a live Herald. Installs pinned openapi-spec-validator and
# schemathesis from PyPI into a venv under the target directory (kept for the next run), checks that
# docs/openapi.json is valid OpenAPI 3.1, starts Herald on a loopback port (its private PostgreSQL
# cluster in a temporary data directory, or DATABASE_URL's database), and fuzzes every operation with
# every schemathesis check on, a fixed seed and a bounded number of examples: any failure or server
# error fails the script. scripts/start-herald.sh starts Herald, as for scripts/test-clients.sh.
# scripts/schemathesis.toml says which statuses count as accepting valid data where the server
# checks more than a schema can state; scripts/schemathesis_hooks.py gives each request an
# Idempotency-Key of its own. SCHEMATHESIS_PORT (default 3199) picks the port, SCHEMATHESIS_EXAMPLES
# (default 12) the examples per operation and phase.
set -euo pipefail
cd "$(dirname "$0")/.."

port=${SCHEMATHESIS_PORT:-3199}
examples=${SCHEMATHESIS_EXAMPLES:-12}
target=${CARGO_TARGET_DIR:-target}
venv=$target/schemathesis-venv
report=$target/schemathesis

if [ ! -x "$venv/bin/st" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check \
    schemathesis==4.32.5 openapi-spec-validator==0.9.0
fi
"$venv/bin/openapi-spec-validator" docs/openapi.json

organization=herald-schemathesis
export HERALD_LOG_FORMAT=json # the errors looked for below are JSON log lines
# shellcheck source=scripts/start-herald.sh
source scripts/start-herald.sh

# The inbox routes take a session token: an in-app integration (the seeded environment has one; a
# second does no harm), a subscriber, and a session for it.
api() { curl -sf -H "Authorization: ApiKey $HERALD_API_KEY" -H 'content-type: application/json' "$@"; }
api -o /dev/null -X POST "$url/v1/integrations" \
  -d '{"providerId":"svc","channel":"in_app","active":true,"credentials":{}}'
api -o /dev/null -X POST "$url/v2/subscribers" -d '{"subscriberId":"schemathesis-inbox"}' || true
application=$(api "$url/v1/environments/me" | python3 -c 'import json,sys; print(json.load(sys.stdin)["applicationIdentifier"])')
HERALD_INBOX_TOKEN=$(curl -sf -H 'content-type: application/json' -X POST "$url/v1/inbox/session" \
  -d "{\"applicationIdentifier\":\"$application\",\"subscriberId\":\"schemathesis-inbox\"}" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["token"])')
export HERALD_INBOX_TOKEN

# The served document must be the committed one that was just validated.
curl -sf "$url/openapi.json" | python3 -c '
import json, sys
served = json.load(sys.stdin)
committed = json.load(open("docs/openapi.json"))
sys.exit(0 if served == committed else "the served document differs from docs/openapi.json")'

# streamInboxEvents is excluded: it answers a Server-Sent Events stream that never ends, and
# schemathesis reads every answer whole, so each of its requests would only end at the request
# timeout (tests/api/inbox/events.rs covers the stream; tests/api/openapi.rs checks it is routed).
status=0
SCHEMATHESIS_HOOKS=schemathesis_hooks PYTHONPATH=scripts \
  "$venv/bin/st" --config-file scripts/schemathesis.toml run "$url/openapi.json" \
  --header "Authorization: ApiKey $HERALD_API_KEY" \
  --checks all \
  --exclude-operation-id streamInboxEvents \
  --seed 17 \
  --max-examples "$examples" \
  --workers 1 \
  --report junit --report-dir "$report" || status=$?
if grep -q '"level":"ERROR"\|panicked' "$work/herald.log"; then
  echo "schemathesis: the server logged errors:" >&2
  grep '"level":"ERROR"\|panicked' "$work/herald.log" | head -20 >&2
  status=1
fi
exit "$status"
