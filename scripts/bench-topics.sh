#!/usr/bin/env bash
# Benchmark of topic fan-out (a measurement, not a test): a trigger to a topic of N members (default
# 100,000) of the seeded in-app `welcome` workflow, on the release build and its private cluster.
#   1. the 401 baseline (GET /v1/environments/me without a key), for ratios measured in the same run;
#   2. the fan-out: from the trigger's acceptance to its last notification (recipients/s), then to the
#      last in-app message (delivery, recipients/s), and Herald's peak RSS before and after;
#   3. trigger latency to a topic: 20 triggers one at a time while the big fan-out runs (p50, max).
#      They name a topic with no member (a trigger stores its fan-out by topic key alone, so its ingest
#      costs the same whatever the topic's size); to the big topic, their fan-outs, expanded beside
#      it, would add 2,000,000 notifications to the run.
# Usage: scripts/bench-topics.sh [members]   BENCH_PORT defaults to 3410 here.
set -euo pipefail
cd "$(dirname "$0")/.."
export BENCH_PORT=${BENCH_PORT:-3410}
# shellcheck source=scripts/bench-start.sh
source scripts/bench-start.sh
members=${1:-100000}

sql() { psql -qAt "$database_url" -v ON_ERROR_STOP=1 -c "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "n/a" }'; }
row() { printf '| %-58s | %12s | %8s |\n' "$1" "$2" "$3"; }
kib_to_mb() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }
status_kib() { awk -v key="$1:" '$1 == key { print $2 }' "/proc/$pid/status"; }
trigger() { # transactionId, topic key → prints the request's total time in ms
  curl -sf -o /dev/null -w '%{time_total}\n' -X POST "$url/v1/events/trigger" \
    -H "Authorization: ApiKey $HERALD_API_KEY" -H 'content-type: application/json' \
    -d "{\"name\": \"welcome\", \"transactionId\": \"$1\", \"to\": [{\"type\": \"Topic\", \"topicKey\": \"$2\"}]}" |
    awk '{ printf "%.2f\n", $1 * 1000 }'
}

unauthenticated=$("$target/release/loadgen" --url "$url" --json --request unauthenticated --concurrency 128 \
  --triggers 50000 2>/dev/null | jq -r '.triggers.accepted_per_s')

# Seeding, not the API under test: the members, their topic and an empty one in three statements.
sql "INSERT INTO subscribers (id, environment_id, organization_id, subscriber_id)
     SELECT gen_random_uuid(), e.id, e.organization_id, 'member-' || i FROM environments e, generate_series(1, $members) i;
     INSERT INTO topics (id, environment_id, organization_id, key, name)
     SELECT gen_random_uuid(), e.id, e.organization_id, key, key FROM environments e, unnest(ARRAY['crowd', 'no-members']) key;
     INSERT INTO topic_subscribers (topic_id, subscriber_id, environment_id, external_subscriber_id, created_at)
     SELECT t.id, s.id, s.environment_id, s.subscriber_id, now() - interval '1 minute'
     FROM topics t JOIN subscribers s ON s.environment_id = t.environment_id AND s.subscriber_id LIKE 'member-%'
     WHERE t.key = 'crowd';"
sql "VACUUM ANALYZE subscribers"
sql "VACUUM ANALYZE topic_subscribers"
rss_before=$(status_kib VmHWM)

first_ms=$(trigger big crowd)
latencies=()
for i in $(seq 1 20); do
  latencies+=("$(trigger "latency-$i" no-members)")
done
p50=$(printf '%s\n' "${latencies[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
max=$(printf '%s\n' "${latencies[@]}" | sort -n | tail -n1)

for _ in $(seq 1 6000); do
  [ "$(sql "SELECT status FROM topic_fanouts WHERE transaction_id = 'big'")" = completed ] && break
  sleep 0.1
done
# Then until no job is left to run (the due-jobs index answers it; counting the trigger's messages on
# every poll scanned the table beside the workers still delivering them).
for _ in $(seq 1 6000); do
  [ "$(sql "SELECT count(*) FROM jobs WHERE status IN ('queued', 'running')")" = 0 ] && break
  sleep 0.1
done
read -r fanout_s delivery_s notifications messages < <(sql "
  SELECT extract(epoch FROM f.updated_at - f.accepted_at),
         extract(epoch FROM (SELECT max(created_at) FROM messages WHERE transaction_id = 'big') - f.accepted_at),
         (SELECT count(*) FROM notifications WHERE transaction_id = 'big'),
         (SELECT count(*) FROM messages WHERE transaction_id = 'big')
  FROM topic_fanouts f WHERE f.transaction_id = 'big'" | tr '|' ' ')
fanout_rate=$(awk -v n="$notifications" -v s="$fanout_s" 'BEGIN { printf "%.0f", n / s }')
delivery_rate=$(awk -v n="$messages" -v s="$delivery_s" 'BEGIN { printf "%.0f", n / s }')
rss_after=$(status_kib VmHWM)

echo
echo "Run of $(date -u +%F) against ${HERALD_BIN:-$target/release/herald}: a topic of $members members"
row "Measure" "Value" "Ratio"
row "---" "---" "---"
row "Unauthenticated GET (401), req/s (baseline)" "$unauthenticated" "1.000"
row "Fan-out: notifications and jobs created, recipients/s" "$fanout_rate" "$(ratio "$fanout_rate" "$unauthenticated")"
row "Fan-out to in-app messages delivered, recipients/s" "$delivery_rate" "$(ratio "$delivery_rate" "$unauthenticated")"
row "Notifications / messages of the trigger (expected $members)" "$notifications / $messages" ""
row "Fan-out time, s / to the last message, s" "$(printf '%.1f / %.1f' "$fanout_s" "$delivery_s")" ""
row "Trigger to the topic, first (idle), ms" "$first_ms" ""
row "Trigger to a topic during the fan-out, p50 / max of 20, ms" "$p50 / $max" ""
row "Herald peak RSS before the fan-out / after it, MB" "$(kib_to_mb "$rss_before") / $(kib_to_mb "$rss_after")" ""
