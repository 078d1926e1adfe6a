#!/usr/bin/env bash
# Benchmark of push delivery through FCM (a measurement, not a test): one push to each of $subscribers
# subscribers with $tokens device tokens each, end to end through Herald's triggers, its workers and the
# `fcm` adapter, to examples/provider_fake.rs standing in for FCM's send endpoint and Google's token
# endpoint (each send answered after $latency ms). Triggers carry at most 1,000 recipients, so there is
# one per thousand subscribers; each subscriber's device tokens come in the trigger (`to[].channels`).
# Reports the time from the first trigger's acceptance to the last push job finishing, as messages/s and
# sends/s, beside an in-app baseline of as many messages in the same run, and what the stand-in saw:
# token exchanges (one cached token per service account: 1) and the connections that carried the sends
# (HTTP/2, multiplexed: 1).
# Usage: scripts/bench-push.sh [subscribers] [tokens per subscriber] [latency ms]   Needs jq and what
# scripts/bench-start.sh needs. More than one token per subscriber needs an engine that sends push
# messages through `send_each`.
set -euo pipefail
cd "$(dirname "$0")/.."
subscribers=${1:-10000}
tokens=${2:-1}
latency=${3:-50}
# shellcheck source=scripts/bench-start.sh
source scripts/bench-start.sh
start_provider_fake "$latency"

sql() { psql -qtAX "$database_url" -c "$1"; }
api() { # method, path, JSON body; a refusal stops the run with Herald's answer
  local answer
  answer=$(curl -sS --fail-with-body -X "$1" -H "Authorization: ApiKey $HERALD_API_KEY" \
    -H 'content-type: application/json' "$url$2" -d "$3") || { echo "$1 $2: $answer" >&2; exit 1; }
}

api POST /v2/workflows '{"workflowId": "inbox", "name": "inbox", "active": true, "steps": [{"name": "Inbox",
  "type": "in_app", "controlValues": {"body": "Your order {{ payload.n }} shipped"}}]}'
api POST /v2/workflows '{"workflowId": "shipped", "name": "shipped", "active": true, "steps": [{"name": "Push",
  "type": "push", "controlValues": {"subject": "Order {{ payload.n }}", "body": "Your order {{ payload.n }} shipped"}}]}'
# The test-only key of tests/fixtures (the stand-in checks no signature); the key file goes in as the text
# an operator pastes.
base="http://127.0.0.1:$http_port"
api POST /v1/integrations "$(jq -n --rawfile key tests/fixtures/fcm-test-key.pem --arg base "$base" '{
  providerId: "fcm", channel: "push", identifier: "bench-fcm", active: true,
  credentials: {baseUrl: $base, serviceAccount: ({type: "service_account", project_id: "bench",
    private_key_id: "bench-key", private_key: $key, client_email: "bench@bench.iam.gserviceaccount.com",
    token_uri: ($base + "/token")} | tojson)}}')"

# One message to each of the subscribers p-1 … p-$subscribers, in triggers of 1,000 recipients (with
# $tokens device tokens each for `channels`' provider, if any); timed from the first trigger's
# acceptance to the last job.
run() { # label, workflow, job type, the subscribers' channels ("" for none)
  local label=$1 workflow=$2 type=$3 channels=$4 t first last to
  for t in $(seq 1 $(((subscribers + 999) / 1000))); do
    first=$(((t - 1) * 1000 + 1))
    last=$((t * 1000 < subscribers ? t * 1000 : subscribers))
    to=$(seq "$first" "$last" | awk -v n="$tokens" -v c="$channels" '{
      printf "%s{\"subscriberId\": \"p-%d\"", (NR > 1 ? "," : ""), $1
      if (c != "") {
        printf ", \"channels\": [{\"providerId\": \"%s\", \"credentials\": {\"deviceTokens\": [", c
        for (i = 1; i <= n; i++) printf "%s\"tok-%d-%d\"", (i > 1 ? "," : ""), $1, i
        printf "]}}]"
      }
      printf "}"
    }')
    api POST /v1/events/trigger "{\"name\": \"$workflow\", \"to\": [$to], \"payload\": {\"n\": $t},
      \"transactionId\": \"$label-$t\"}"
  done
  until [ "$(sql "SELECT count(*) FROM jobs WHERE transaction_id LIKE '$label-%' AND type = '$type'
                  AND status IN ('completed', 'failed')")" = "$subscribers" ]; do
    sleep 0.2
  done
  local rate="$subscribers / extract(epoch FROM max(updated_at) - min(created_at))"
  sql "SELECT rpad('$label', 8) || to_char(extract(epoch FROM max(updated_at) - min(created_at)), 'FM990.00') || ' s  '
              || to_char($rate, 'FM99990.0') || ' messages/s'
              || CASE WHEN '$type' = 'push' THEN '  ' || to_char($tokens * $rate, 'FM99990.0') || ' sends/s' ELSE '' END
              || '  (the triggers alone: ' || (SELECT to_char(extract(epoch FROM max(updated_at) - min(created_at)), 'FM990.00')
                   FROM jobs WHERE transaction_id LIKE '$label-%' AND type = 'trigger') || ' s)'
       FROM jobs WHERE transaction_id LIKE '$label-%'"
  sql "SELECT count(*) FILTER (WHERE status = 'sent') || ' sent, ' || count(*) FILTER (WHERE status <> 'sent')
              || ' not' FROM messages WHERE transaction_id LIKE '$label-%'"
}

echo "=== $subscribers subscribers x $tokens device tokens = $((subscribers * tokens)) FCM sends; latency $latency ms"
# Creating the subscribers with their device tokens costs the triggers far more than delivering does:
# done first, with in-app messages, so that the timed runs compare delivery.
run setup inbox in_app fcm
run inbox inbox in_app ""
run push shipped push ""
echo "FCM stand-in: $(stats)"
