#!/usr/bin/env bash
# Benchmark of push delivery through FCM (a measurement, not a test): one push to each of $subscribers
# subscribers with $tokens device tokens each, end to end through Herald's triggers, its workers and the
# `fcm` adapter, to examples/provider_fake.rs standing in for FCM's send endpoint and Google's token
# endpoint (each send answered after $latency ms). Triggers carry at most 1,000 recipients, so there is
# one per thousand subscribers; each subscriber's device tokens come in the trigger (`to[].channels`).
# Reports the sends per second, from the first trigger's acceptance to the last push job finishing, and
# what the stand-in saw: token exchanges (one cached token per service account: 1) and the connections
# that carried the sends (HTTP/2, multiplexed: 1).
# Usage: scripts/bench-push.sh [subscribers] [tokens per subscriber] [latency ms]
# More than one token per subscriber needs the engine to send push messages through `send_each`.
set -euo pipefail
cd "$(dirname "$0")/.."
subscribers=${1:-10000}
tokens=${2:-1}
latency=${3:-50}
# shellcheck source=scripts/bench-start.sh
source scripts/bench-start.sh
cargo build --release --example provider_fake
http_port=$((port + 1))
smtp_port=$((port + 2))
"$target/release/examples/provider_fake" "$http_port" "$smtp_port" "$latency" &
fake=$!
trap 'kill $fake 2>/dev/null; stop' EXIT

sql() { psql -qtAX "$database_url" -c "$1"; }
api() { # method, path, JSON body
  curl -sf -o /dev/null -X "$1" -H "Authorization: ApiKey $HERALD_API_KEY" -H 'content-type: application/json' \
    "$url$2" -d "$3"
}
stats() { curl -sf "http://127.0.0.1:$http_port/stats"; }

api POST /v2/workflows '{"workflowId": "shipped", "name": "shipped", "active": true, "steps": [{"name": "Push",
  "type": "push", "controlValues": {"subject": "Order {{ payload.n }}", "body": "Your order {{ payload.n }} shipped"}}]}'
# The test-only key of tests/fixtures (the stand-in checks no signature), its line breaks escaped for JSON.
private_key=$(awk '{ printf "%s\\n", $0 }' tests/fixtures/fcm-test-key.pem)
api POST /v1/integrations "{\"providerId\": \"fcm\", \"channel\": \"push\", \"identifier\": \"bench-fcm\",
  \"active\": true, \"credentials\": {\"baseUrl\": \"http://127.0.0.1:$http_port\", \"serviceAccount\": {
    \"type\": \"service_account\", \"project_id\": \"bench\", \"private_key_id\": \"bench-key\",
    \"private_key\": \"$private_key\", \"client_email\": \"bench@bench.iam.gserviceaccount.com\",
    \"token_uri\": \"http://127.0.0.1:$http_port/token\"}}}"

echo "=== $subscribers subscribers x $tokens device tokens = $((subscribers * tokens)) FCM sends; latency $latency ms"
triggers=$(((subscribers + 999) / 1000))
for t in $(seq 1 "$triggers"); do
  first=$(((t - 1) * 1000 + 1))
  last=$((t * 1000 < subscribers ? t * 1000 : subscribers))
  to=$(seq "$first" "$last" | awk -v n="$tokens" '{
    printf "%s{\"subscriberId\": \"p-%d\", \"channels\": [{\"providerId\": \"fcm\", \"credentials\": {\"deviceTokens\": [", (NR > 1 ? "," : ""), $1
    for (i = 1; i <= n; i++) printf "%s\"tok-%d-%d\"", (i > 1 ? "," : ""), $1, i
    printf "]}}]}"
  }')
  curl -sf -o /dev/null -X POST -H "Authorization: ApiKey $HERALD_API_KEY" -H 'content-type: application/json' \
    "$url/v1/events/trigger" -d "{\"name\": \"shipped\", \"to\": [$to], \"payload\": {\"n\": $t},
      \"transactionId\": \"push-$t\"}"
done
until [ "$(sql "SELECT count(*) FROM jobs WHERE transaction_id LIKE 'push-%' AND type = 'push'
                AND status IN ('completed', 'failed')")" = "$subscribers" ]; do
  sleep 0.2
done
sql "SELECT to_char(extract(epoch FROM max(updated_at) - min(created_at)), 'FM990.00') || ' s  '
            || to_char($subscribers * $tokens / extract(epoch FROM max(updated_at) - min(created_at)), 'FM99990.0')
            || ' sends/s'
     FROM jobs WHERE transaction_id LIKE 'push-%'"
sql "SELECT count(*) FILTER (WHERE status = 'sent') || ' push messages sent, ' || count(*) FILTER (WHERE status <> 'sent')
            || ' not' FROM messages WHERE transaction_id LIKE 'push-%'"
echo "FCM stand-in: $(stats)"
