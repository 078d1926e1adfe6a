#!/usr/bin/env bash
# Benchmark of the inbox event stream (a measurement, not a test), on the release build and its private
# cluster (issue 19's scale goals):
#   1. the 401 baseline (GET /v1/environments/me without a key), for ratios measured in the same run;
#   2. memory: Herald's RSS idle; then holding N idle SSE streams (default 10,000, over 100
#      subscribers), each on a connection of its own and having received its opening `counts` event
#      (the lean writer's path); then N/2 more keep-alive connections that each answered a GET /healthz
#      (what a hyper connection costs); then a stream on each of those (what a stream adds to a hyper
#      connection, as when a browser reuses one). Keep-alives flow meanwhile; RSS only grows, so the
#      three increments add up (N + N/2 connections: a process here may hold 20,000 descriptors);
#   3. trigger-to-event latency: one stream per `live-*` subscriber (500), triggers of the seeded in-app
#      `welcome` workflow at R/s (default 500) for 10 s over 32 keep-alive connections, each measured
#      from its request being written to its `received` event arriving on the subscriber's stream.
# Usage: scripts/bench-inbox-sse.sh [connections] [rate]   BENCH_PORT defaults to 3420 here.
set -euo pipefail
cd "$(dirname "$0")/.."
export BENCH_PORT=${BENCH_PORT:-3420}
# shellcheck source=scripts/bench-start.sh
source scripts/bench-start.sh
connections=${1:-10000}
rate=${2:-500}
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

sql() { psql -qAt "$database_url" -v ON_ERROR_STOP=1 -c "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.4f", a / b; else print "n/a" }'; }
rss_mb() { awk '$1 == "VmRSS:" { printf "%.0f", $2 / 1024 }' "/proc/$pid/status"; }

unauthenticated=$("$target/release/loadgen" --url "$url" --json --request unauthenticated --concurrency 128 \
  --triggers 50000 2>/dev/null | jq -r '.triggers.accepted_per_s')
app=$(curl -sf -H "Authorization: ApiKey $HERALD_API_KEY" "$url/v1/environments/me" | jq -r .applicationIdentifier)

# Seeding, not the API under test: the subscribers whose streams are opened.
sql "INSERT INTO subscribers (id, environment_id, organization_id, subscriber_id)
     SELECT gen_random_uuid(), e.id, e.organization_id, p || i
     FROM environments e, generate_series(0, 499) i, (VALUES ('idle-'), ('live-')) v(p);"

rss_idle=$(rss_mb)
fifo=$(mktemp -u)
mkfifo "$fifo"
python3 scripts/bench_inbox_sse.py idle --url "$url" --app "$app" --idle "$connections" --reused $((connections / 2)) <"$fifo" >"$fifo.out" &
client=$!
exec 3>"$fifo" # holds the client's stdin open: it keeps its streams until this closes
client_said() { # waits for the client's Nth line of output and prints it
  until [ "$(wc -l <"$fifo.out")" -ge "$1" ]; do
    kill -0 "$client" 2>/dev/null || { echo "the idle client failed" >&2; exit 1; }
    sleep 0.5
  done
  sed -n "${1}p" "$fifo.out"
}
lean_opened=$(client_said 1 | jq -r .opened)
sleep 20 # keep-alives go out every 15 s
rss_lean=$(rss_mb)
echo >&3 # on to keep-alive connections served by hyper
connected=$(client_said 2 | jq -r .connected)
sleep 2
rss_connected=$(rss_mb)
echo >&3 # on to streams on those same connections
reused_opened=$(client_said 3 | jq -r .opened)
sleep 20
rss_reused=$(rss_mb)
exec 3>&-
wait "$client" || true
rm -f "$fifo" "$fifo.out"
kb_each() { awk -v mb="$1" -v n="$2" 'BEGIN { if (n > 0) printf "%.1f", mb * 1024 / n; else print "n/a" }'; }

latency=$(python3 scripts/bench_inbox_sse.py latency --url "$url" --app "$app" --subscribers 500 --rate "$rate")

cat <<REPORT
| inbox SSE benchmark | value |
|---|---|
| unauthenticated 401 baseline | ${unauthenticated} req/s |
| idle streams, each on its own connection (lean writer), each got its counts event | ${lean_opened} of ${connections} |
| Herald RSS idle → holding them (after 20 s of keep-alives) | ${rss_idle} MB → ${rss_lean} MB (**+$((rss_lean - rss_idle)) MB**, $(kb_each $((rss_lean - rss_idle)) "$lean_opened") KB a stream) |
| then keep-alive connections served by hyper (each answered one GET /healthz) | ${connected}: +$((rss_connected - rss_lean)) MB ($(kb_each $((rss_connected - rss_lean)) "$connected") KB a connection) |
| then a stream on each of those (a reused connection) | ${reused_opened} opened: +$((rss_reused - rss_connected)) MB ($(kb_each $((rss_reused - rss_connected)) "$reused_opened") KB a stream) |
| trigger → received event at ${rate}/s | $(echo "$latency" | jq -r '"p50 \(.p50_ms) ms, p99 \(.p99_ms) ms, max \(.max_ms) ms (\(.events) of \(.triggers) events, \(.refused) refused)"') |
| trigger rate ÷ 401 rate | $(ratio "$rate" "$unauthenticated") |
REPORT
