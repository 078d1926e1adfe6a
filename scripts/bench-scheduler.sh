#!/usr/bin/env bash
# Benchmark of the scheduler (a measurement, not a test). With 100,000 delayed jobs pending:
#   1. the scheduler's idle cost: CPU of Herald and its PostgreSQL over 30 s with nothing due;
#   2. how late 1-second delays fire (open loop, 100 triggers/s), from the delays' own records;
#   3. a digest of 10,000 events to one subscriber: one message, and how long closing the window takes.
# Usage: scripts/bench-scheduler.sh        Starts Herald on its private cluster (see scripts/bench-start.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/bench-start.sh
source scripts/bench-start.sh

sql() { psql -qtAX "$database_url" -c "$1"; }
create_workflow() { # identifier, steps JSON
  curl -sf -o /dev/null -X POST -H "Authorization: ApiKey $HERALD_API_KEY" -H 'content-type: application/json' \
    "$url/v2/workflows" -d "{\"workflowId\": \"$1\", \"name\": \"$1\", \"active\": true, \"steps\": $2}"
}
wait_for() { # label, SQL returning a boolean
  local started=$SECONDS
  until [ "$(sql "$2")" = t ]; do
    if [ $((SECONDS - started)) -gt 600 ]; then
      echo "timed out waiting for $1" >&2
      exit 1
    fi
    sleep 0.5
  done
  echo "$1 after $((SECONDS - started)) s"
}
inbox='{"name": "Inbox", "type": "in_app", "controlValues": {"body": "{{ step.total_count }} events"}}'
delay() { echo "{\"name\": \"Wait\", \"type\": \"delay\", \"controlValues\": {\"type\": \"regular\", \"amount\": $1, \"unit\": \"$2\"}}"; }
create_workflow park "[$(delay 1 days), $inbox]"
create_workflow one-second "[$(delay 1 seconds), $inbox]"
create_workflow bundle "[{\"name\": \"Digest\", \"type\": \"digest\", \"controlValues\": {\"type\": \"regular\", \"amount\": 90, \"unit\": \"seconds\"}}, $inbox]"

echo "=== Seeding 100,000 delayed jobs (100 triggers of 1,000 recipients, delay 1 day)"
target/release/loadgen --url "$url" --workflow park --triggers 100 --recipients-per-trigger 1000 \
  --subscribers 100000 --concurrency 4 --no-wait
wait_for "100,000 delays parked" "SELECT count(*) = 100000 FROM jobs WHERE type = 'delay' AND status = 'delayed'"

echo
echo "=== Idle cost with 100,000 delayed jobs and nothing due (30 s)"
sleep 2
before=$(($(herald_ticks) + $(postgres_ticks)))
sleep 30
after=$(($(herald_ticks) + $(postgres_ticks)))
awk -v ticks=$((after - before)) -v hz="$(getconf CLK_TCK)" \
  'BEGIN { printf "CPU: %.2f s over 30 s (%.2f%% of one core), Herald and PostgreSQL together\n", ticks / hz, ticks / hz / 30 * 100 }'

echo
echo "=== 1-second delays, 3,000 at 100 triggers/s, with 100,000 delayed jobs pending"
target/release/loadgen --url "$url" --workflow one-second --rate 100 --triggers 3000 --concurrency 64 --subscribers 3000
echo "How late each delay fired (its 'Delay finished' record against the end it was parked with):"
sql "SELECT format('p50 %s ms, p99 %s ms, max %s ms over %s delays',
                   round(percentile_cont(0.5) WITHIN GROUP (ORDER BY late)), round(percentile_cont(0.99) WITHIN GROUP (ORDER BY late)),
                   round(max(late)), count(*))
     FROM (SELECT extract(epoch FROM d.created_at - (j.result->>'delayedUntil')::timestamptz) * 1000 AS late
           FROM jobs j JOIN workflows w ON w.id = j.workflow_id JOIN execution_details d ON d.job_id = j.id
           WHERE w.identifier = 'one-second' AND j.type = 'delay' AND d.detail = 'Delay finished') AS delays"
echo "Trigger accepted → delay finished (the 1-s delay included):"
sql "SELECT format('p50 %s ms, p99 %s ms', round(percentile_cont(0.5) WITHIN GROUP (ORDER BY total)), round(percentile_cont(0.99) WITHIN GROUP (ORDER BY total)))
     FROM (SELECT extract(epoch FROM d.created_at - j.created_at) * 1000 AS total
           FROM jobs j JOIN workflows w ON w.id = j.workflow_id JOIN execution_details d ON d.job_id = j.id
           WHERE w.identifier = 'one-second' AND j.type = 'delay' AND d.detail = 'Delay finished') AS delays"

echo
echo "=== A digest of 10,000 events to one subscriber (90-s window)"
started=$SECONDS
target/release/loadgen --url "$url" --workflow bundle --triggers 10000 --subscribers 1 --concurrency 64 --no-wait
echo "10,000 triggers accepted in $((SECONDS - started)) s"
wait_for "the digest sent" "SELECT count(*) > 0 FROM messages m JOIN workflows w ON w.id = m.workflow_id WHERE w.identifier = 'bundle'"
wait_for "every bundle job settled" "SELECT count(*) = 0 FROM jobs j JOIN workflows w ON w.id = j.workflow_id
  WHERE w.identifier = 'bundle' AND j.status IN ('pending', 'queued', 'running', 'delayed')"
sql "SELECT format('%s message(s): %s', count(*), string_agg(m.content #>> '{}', ', '))
     FROM messages m JOIN workflows w ON w.id = m.workflow_id WHERE w.identifier = 'bundle'"
sql "SELECT format('digest jobs: %s', string_agg(format('%s %s', n, status), ', '))
     FROM (SELECT j.status, count(*) AS n FROM jobs j JOIN workflows w ON w.id = j.workflow_id
           WHERE w.identifier = 'bundle' AND j.type = 'digest' GROUP BY j.status) AS s"
sql "SELECT format('window end → digest message stored: %s ms (the digest job collected %s events)',
                   round(extract(epoch FROM m.created_at - (j.result->>'windowEnd')::timestamptz) * 1000),
                   jsonb_array_length(j.digest->'events'))
     FROM jobs j JOIN messages m ON m.notification_id = j.notification_id JOIN workflows w ON w.id = j.workflow_id
     WHERE w.identifier = 'bundle' AND j.type = 'digest' AND j.status = 'completed'"
