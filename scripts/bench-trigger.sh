#!/usr/bin/env bash
# Benchmark of the request path (a measurement, not a test), every rate also given as a ratio to the
# rate of a request Herald refuses without the database (GET /v1/environments/me without a key: 401),
# measured in the same run: the machine is noisy, ratios are not.
#   1. the 401 baseline and an authenticated read (the cost of authentication);
#   2. after a warm-up (5,000 triggers, then ANALYZE), durable ingest with the workers delivering
#      beside it: triggers of the seeded in-app `welcome` workflow over REST and gRPC, closed loop
#      (without and with a fresh Idempotency-Key per trigger), over gRPC streams (StreamTriggerEvents,
#      the same 128 in flight over 8 connections), and REST open loop at 2,000/s (latency from each
#      trigger's scheduled time);
#   3. delivery: the in-app messages of the REST run, from its first trigger to its last message, and
#      the same with 20 subscribers, whose inboxes grow to 1,000 messages each (an event's counts must
#      not cost more as an inbox grows); with the CPU time Herald and PostgreSQL spent per trigger of
#      the REST run (accepted and delivered), which the machine's noise moves less than a rate;
#   4. a 1,000-recipient trigger, one at a time;
#   5. Herald's resident memory after all of it, and its peak during the run.
# Usage: scripts/bench-trigger.sh [scale]   (scale multiplies the request counts; default 1)
# HERALD_BIN benchmarks another build of the server (e.g. an older commit's) with this loadgen.
# Starts Herald on its private cluster (see scripts/bench-start.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/bench-start.sh
source scripts/bench-start.sh
scale=${1:-1}

# loadgen with a JSON report; prints one figure of it (a jq path) on stdout, the text report on stderr.
figure() { # jq path, loadgen options…
  local path=$1
  shift
  local report
  report=$("$target/release/loadgen" --url "$url" --json "$@" 2>/dev/null) || {
    echo "loadgen failed: $*" >&2
    echo "$report" >&2
    exit 1
  }
  jq -r "$path // \"n/a\"" <<<"$report"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "n/a" }'; }
row() { printf '| %-56s | %12s | %8s |\n' "$1" "$2" "$3"; }

requests=$((50000 * scale))
triggers=$((20000 * scale))
unauthenticated=$(figure .triggers.accepted_per_s --request unauthenticated --concurrency 128 --triggers "$requests")
read=$(figure .triggers.accepted_per_s --request read --concurrency 128 --triggers "$requests")

# A warm-up, as bench-compare.sh and bench-ingest.sh run it: the first batches plan their statements and
# grow the tables, and ANALYZE gives the planner the statistics a running service has (autovacuum takes
# the first ones up to a minute after the tables fill). Without it, the load generator's checks of the
# REST run (listings of 100 transactionIds) ran on tables without statistics, 50–70 ms each, and most
# of the PostgreSQL CPU per trigger it reported was theirs (docs/performance.md).
"$target/release/loadgen" --url "$url" --protocol rest --concurrency 128 --triggers $((5000 * scale)) \
  --wait-timeout-secs 600 >/dev/null 2>&1
psql -qAt "$database_url" -c "ANALYZE" >/dev/null

herald_before=$(herald_ticks)
postgres_before=$(postgres_ticks)
rest_report=$("$target/release/loadgen" --url "$url" --json --protocol rest --concurrency 128 \
  --triggers "$triggers" --wait-timeout-secs 600)
# CPU per trigger accepted and delivered, in µs: ticks × 10⁶ / ticks a second / triggers.
per_trigger() { awk -v t="$1" -v hz="$(getconf CLK_TCK)" -v n="$triggers" 'BEGIN { printf "%.0f", t * 1e6 / hz / n }'; }
herald_cpu=$(per_trigger $(($(herald_ticks) - herald_before)))
postgres_cpu=$(per_trigger $(($(postgres_ticks) - postgres_before)))
rest=$(jq -r '.triggers.accepted_per_s' <<<"$rest_report")
delivery=$(jq -r '.delivery.messages_per_s // "n/a"' <<<"$rest_report")
missing=$(jq -r '.delivery.missing_messages + .delivery.extra_messages' <<<"$rest_report")
large_inboxes=$(figure .delivery.messages_per_s --protocol rest --concurrency 128 --triggers "$triggers" \
  --subscribers 20 --wait-timeout-secs 600)
# The same closed-loop runs with a fresh Idempotency-Key on every trigger (as the official SDKs send).
# They wait for their messages, so that each run starts with no delivery backlog, like the REST run.
rest_keyed=$(figure .triggers.accepted_per_s --protocol rest --concurrency 128 --triggers "$triggers" \
  --idempotency-keys --wait-timeout-secs 600)
grpc_keyed=$(figure .triggers.accepted_per_s --protocol grpc --grpc-connections 8 --concurrency 128 \
  --triggers "$triggers" --idempotency-keys --wait-timeout-secs 600)
# It waits for its messages too: the open-loop run after it measures the latency of 2,000 triggers/s
# with their delivery beside them, not with a backlog of 20,000 being drained at full speed.
grpc=$(figure .triggers.accepted_per_s --protocol grpc --grpc-connections 8 --concurrency 128 \
  --triggers "$triggers" --wait-timeout-secs 600)
grpc_stream=$(figure .triggers.accepted_per_s --protocol grpc-stream --grpc-connections 8 --concurrency 128 \
  --triggers "$triggers" --wait-timeout-secs 600)
open_p99=$(figure .triggers.latency.p99_ms --protocol rest --rate 2000 --concurrency 512 \
  --triggers $((10000 * scale)) --no-wait)
wide_p50=$(figure .triggers.latency.p50_ms --protocol rest --concurrency 1 --recipients-per-trigger 1000 \
  --subscribers 5000 --triggers 20 --no-wait)
rss_mb=$(awk '/VmRSS/ { printf "%.0f", $2 / 1024 }' "/proc/$pid/status")
peak_mb=$(awk '/VmHWM/ { printf "%.0f", $2 / 1024 }' "/proc/$pid/status")

echo
echo "Run of $(date -u +%F) against ${HERALD_BIN:-$target/release/herald}"
row "Measure" "Value" "Ratio"
row "---" "---" "---"
row "Unauthenticated GET (401), req/s (baseline)" "$unauthenticated" "1.000"
row "Authenticated GET /v1/environments/me, req/s" "$read" "$(ratio "$read" "$unauthenticated")"
row "Triggers over REST, 128 connections, /s" "$rest" "$(ratio "$rest" "$unauthenticated")"
row "Triggers over gRPC, 8 connections × 16 streams, /s" "$grpc" "$(ratio "$grpc" "$unauthenticated")"
row "Triggers over 8 gRPC streams (StreamTriggerEvents), /s" "$grpc_stream" "$(ratio "$grpc_stream" "$unauthenticated")"
row "Triggers over REST with Idempotency-Key, /s" "$rest_keyed" "$(ratio "$rest_keyed" "$unauthenticated")"
row "Triggers over gRPC with idempotency-key, /s" "$grpc_keyed" "$(ratio "$grpc_keyed" "$unauthenticated")"
row "In-app messages delivered (REST run), /s" "$delivery" "$(ratio "$delivery" "$unauthenticated")"
row "Messages missing or doubled (REST run)" "$missing" ""
row "Herald CPU per trigger delivered (REST run), µs" "$herald_cpu" ""
row "PostgreSQL CPU per trigger delivered (REST run), µs" "$postgres_cpu" ""
row "In-app delivered to 20 subscribers' growing inboxes, /s" "$large_inboxes" "$(ratio "$large_inboxes" "$unauthenticated")"
row "p99 trigger latency at 2,000/s open loop, ms" "$open_p99" ""
row "1,000-recipient trigger, p50 latency, ms" "$wide_p50" ""
row "Herald RSS after the run, MB" "$rss_mb" ""
row "Herald peak RSS during the run (VmHWM), MB" "$peak_mb" ""
