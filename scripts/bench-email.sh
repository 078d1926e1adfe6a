#!/usr/bin/env bash
# Benchmark of real-provider delivery (a measurement, not a test): 1,000 emails through a provider that
# answers after 50 ms, over its HTTP API (Resend's) and over SMTP, against a baseline of 1,000 in-app
# messages in the same run. Each is one trigger to 1,000 subscribers; reports the time from the trigger to
# its last job finishing, the transactions that recorded the calls before they were made, and the
# connections the provider stand-in accepted (pooled: fewer than 1,000).
# Usage: scripts/bench-email.sh [emails] [latency ms]   Starts Herald on its private cluster (see
# scripts/bench-start.sh) and examples/provider_fake.rs beside it. BENCH_WAIT_SECS (default 120): how long
# one run may take before the script reports its jobs and fails.
set -euo pipefail
cd "$(dirname "$0")/.."
emails=${1:-1000}
latency=${2:-50}
wait_secs=${BENCH_WAIT_SECS:-120} # longest wait for one run's jobs to finish
# shellcheck source=scripts/bench-start.sh
source scripts/bench-start.sh
start_provider_fake "$latency"

sql() { psql -qtAX "$database_url" -c "$1"; }
api() { # method, path, JSON body
  curl -sf -o /dev/null -X "$1" -H "Authorization: ApiKey $HERALD_API_KEY" -H 'content-type: application/json' \
    "$url$2" -d "$3"
}
api POST /v2/workflows '{"workflowId": "inbox", "name": "inbox", "active": true, "steps": [{"name": "Inbox",
  "type": "in_app", "controlValues": {"body": "Order {{ payload.n }}"}}]}'
api POST /v2/workflows '{"workflowId": "mail", "name": "mail", "active": true, "steps": [{"name": "Mail",
  "type": "email", "controlValues": {"subject": "Order {{ payload.n }}", "body": "<p>Order {{ payload.n }}</p>",
  "editorType": "html"}}]}'
api POST /v1/integrations "{\"providerId\": \"resend\", \"channel\": \"email\", \"identifier\": \"bench-http\",
  \"active\": true, \"credentials\": {\"apiKey\": \"re_bench\", \"from\": \"bench@acme.io\",
  \"baseUrl\": \"http://127.0.0.1:$http_port\"}}"
api POST /v1/integrations "{\"providerId\": \"nodemailer\", \"channel\": \"email\", \"identifier\": \"bench-smtp\",
  \"active\": true, \"credentials\": {\"host\": \"127.0.0.1\", \"port\": \"$smtp_port\", \"ignoreTls\": true,
  \"from\": \"bench@acme.io\"}}"

# One trigger to $emails new subscribers (each with an address), so the delivery path, not the trigger
# rate, is what is timed: seconds from the trigger's acceptance to the last of its jobs finishing.
run() { # label, workflow, channel, integration identifier ("" for none)
  local label=$1 workflow=$2 channel=$3 integration=$4 overrides='{}' to
  [ -n "$integration" ] && overrides="{\"email\": {\"integrationIdentifier\": \"$integration\"}}"
  to=$(seq 1 "$emails" | awk -v l="$label" '{ printf "%s{\"subscriberId\": \"%s-%d\", \"email\": \"s%d@example.com\"}", (NR > 1 ? "," : ""), l, $1, $1 }')
  curl -sf -o /dev/null -X POST -H "Authorization: ApiKey $HERALD_API_KEY" -H 'content-type: application/json' \
    "$url/v1/events/trigger" -d "{\"name\": \"$workflow\", \"to\": [$to], \"payload\": {\"n\": 1},
      \"overrides\": $overrides, \"transactionId\": \"$label\"}"
  # A stalled delivery is reported, not waited for (a worker stall once left this loop waiting forever).
  local deadline=$((SECONDS + wait_secs))
  until [ "$(sql "SELECT count(*) FROM jobs WHERE transaction_id = '$label' AND type = '$channel'
                  AND status IN ('completed', 'failed')")" = "$emails" ]; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "$label: not finished after $wait_secs s; its jobs and delivery records by status:" >&2
      sql "SELECT 'job ' || status || ': ' || count(*) FROM jobs WHERE transaction_id = '$label' GROUP BY status
           UNION ALL SELECT 'delivery ' || d.status || ': ' || count(*) FROM provider_deliveries d
           JOIN jobs j ON j.id = d.job_id WHERE j.transaction_id = '$label' GROUP BY d.status" >&2
      exit 1
    fi
    sleep 0.2
  done
  sql "SELECT rpad('$label', 22) || to_char(extract(epoch FROM max(j.updated_at) - min(j.created_at)), 'FM990.00') || ' s  '
              || to_char($emails / extract(epoch FROM max(j.updated_at) - min(j.created_at)), 'FM99990.0') || ' messages/s'
       FROM jobs j WHERE j.transaction_id = '$label'"
  sql "SELECT count(*) FILTER (WHERE status = 'sent') || ' sent, ' || count(*) FILTER (WHERE status <> 'sent') || ' not'
       FROM messages WHERE transaction_id = '$label'"
  # The calls' records written together share their transaction's time (a build before that wrote each
  # call's record in a transaction of its own shows about one write per call).
  [ "$channel" = in_app ] || sql "SELECT count(DISTINCT d.started_at) || ' call-record writes' FROM provider_deliveries d
                                  JOIN jobs j ON j.id = d.job_id WHERE j.transaction_id = '$label'"
}

echo "=== $emails messages each, one trigger; provider latency $latency ms"
run baseline-in-app inbox in_app ""
run resend-http mail email bench-http
echo "provider stand-in after HTTP: $(stats)"
run smtp mail email bench-smtp
echo "provider stand-in after SMTP: $(stats)"
