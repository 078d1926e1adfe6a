#!/usr/bin/env bash
# Benchmark of real-provider delivery (a measurement, not a test): 1,000 emails through a provider that
# answers after 50 ms, over its HTTP API (Resend's) and over SMTP, against a baseline of 1,000 in-app
# messages in the same run. Reports wall time from the first trigger to the last message sent, and the
# connections the provider stand-in accepted (connections are pooled: far fewer than 1,000).
# Usage: scripts/bench-email.sh [emails] [latency ms]   Starts Herald on its private cluster (see
# scripts/bench-start.sh) and examples/provider_fake.rs beside it.
set -euo pipefail
cd "$(dirname "$0")/.."
emails=${1:-1000}
latency=${2:-50}
# shellcheck source=scripts/bench-start.sh
source scripts/bench-start.sh
cargo build --release --example provider_fake
http_port=$((port + 1))
smtp_port=$((port + 2))
target/release/examples/provider_fake "$http_port" "$smtp_port" "$latency" &
fake=$!
trap 'kill $fake 2>/dev/null; stop' EXIT

sql() { psql -qtAX "$database_url" -c "$1"; }
api() { # method, path, JSON body
  curl -sf -o /dev/null -X "$1" -H "Authorization: ApiKey $HERALD_API_KEY" -H 'content-type: application/json' \
    "$url$2" -d "$3"
}
stats() { curl -sf "http://127.0.0.1:$http_port/stats"; }
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

# One trigger per email, 32 in flight, each to its own subscriber with an address; then waits for every
# message and prints the seconds from the first trigger to the last message written.
run() { # label, workflow, channel, integration identifier ("" for none)
  local label=$1 workflow=$2 channel=$3 integration=$4 started ended
  local overrides='{}'
  [ -n "$integration" ] && overrides="{\"email\": {\"integrationIdentifier\": \"$integration\"}}"
  started=$(sql "SELECT extract(epoch FROM clock_timestamp())")
  seq 1 "$emails" | xargs -P 32 -I% curl -sf -o /dev/null -X POST -H "Authorization: ApiKey $HERALD_API_KEY" \
    -H 'content-type: application/json' "$url/v1/events/trigger" \
    -d "{\"name\": \"$workflow\", \"to\": {\"subscriberId\": \"$label-%\", \"email\": \"s%@example.com\"},
         \"payload\": {\"n\": %}, \"overrides\": $overrides}"
  until [ "$(sql "SELECT count(*) FROM messages m JOIN jobs j ON j.id = m.job_id
                  WHERE m.channel = '$channel' AND j.status IN ('completed', 'failed') AND m.template_identifier = '$workflow'
                    AND m.subscriber_id IN (SELECT id FROM subscribers WHERE subscriber_id LIKE '$label-%')")" = "$emails" ]; do
    sleep 0.2
  done
  ended=$(sql "SELECT extract(epoch FROM max(j.updated_at)) FROM jobs j JOIN subscribers s ON s.id = j.subscriber_id
               WHERE s.subscriber_id LIKE '$label-%'")
  awk -v s="$started" -v e="$ended" -v n="$emails" -v l="$label" \
    'BEGIN { printf "%-22s %6.2f s  %7.1f messages/s\n", l, e - s, n / (e - s) }'
  sql "SELECT count(*) FILTER (WHERE m.status = 'sent') || ' sent, ' || count(*) FILTER (WHERE m.status <> 'sent') || ' not'
       FROM messages m JOIN subscribers s ON s.id = m.subscriber_id WHERE s.subscriber_id LIKE '$label-%'"
}

echo "=== $emails messages each; provider latency $latency ms; 32 triggers in flight"
run baseline-in-app inbox in_app ""
run resend-http mail email bench-http
echo "provider stand-in after HTTP: $(stats)"
run smtp mail email bench-smtp
echo "provider stand-in after SMTP: $(stats)"
