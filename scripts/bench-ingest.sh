#!/usr/bin/env bash
# Benchmark of ingest and delivery measured apart (a measurement, not a test): an API process alone
# stores triggers, then a worker process alone delivers what they left due. bench-trigger.sh measures
# the two running together on the same 2 cores, where each takes the other's CPU;
# ../shared/research/ingest-performance.md (7.8) asks for both ways. Every rate is also a ratio to
# the rate of a request Herald refuses without the database (GET /v1/environments/me without a key:
# 401), measured in the same run: the machine is noisy, ratios are not.
#   1. `herald serve --role api` on its private cluster (see scripts/bench-start.sh): the 401
#      baseline, then one-recipient triggers of the seeded in-app `welcome` workflow over REST, gRPC
#      and gRPC streams (StreamTriggerEvents; 128 in flight, closed loop), and REST open loop at
#      2,000/s (latency from each trigger's scheduled time), none of them delivered meanwhile; CPU per
#      trigger of each closed-loop run;
#   2. `herald serve --role worker` on the same cluster: the in-app messages of every trigger above,
#      delivered from its backlog (the rate from the first message's creation to the last one's), CPU
#      per message, and messages missing or doubled.
# Usage: scripts/bench-ingest.sh [scale]   (scale multiplies the request counts; default 1)
# HERALD_BIN benchmarks another build of the server (e.g. an older commit's) with this loadgen.
set -euo pipefail
cd "$(dirname "$0")/.."
export HERALD_ROLE=api
# shellcheck source=scripts/bench-start.sh
source scripts/bench-start.sh
scale=${1:-1}

loadgen() { "$target/release/loadgen" --url "$url" --json "$@" 2>/dev/null; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "n/a" }'; }
row() { printf '| %-62s | %13s | %8s |\n' "$1" "$2" "$3"; }
# CPU in µs per unit of work: ticks × 10⁶ / ticks a second / units.
per_unit() { awk -v t="$1" -v hz="$(getconf CLK_TCK)" -v n="$2" 'BEGIN { printf "%.0f", t * 1e6 / hz / n }'; }
sql() { psql -qAt "$database_url" -c "$1"; }

triggers=$((20000 * scale))
unauthenticated=$(loadgen --request unauthenticated --concurrency 128 --triggers $((50000 * scale)) |
  jq .triggers.accepted_per_s)
# A warm-up like bench-compare.sh's: the first batches plan their statements and grow the tables.
loadgen --protocol rest --concurrency 128 --triggers $((5000 * scale)) --no-wait >/dev/null
sql "ANALYZE" >/dev/null

herald_before=$(herald_ticks)
postgres_before=$(postgres_ticks)
rest=$(loadgen --protocol rest --concurrency 128 --triggers "$triggers" --no-wait | jq .triggers.accepted_per_s)
herald_cpu=$(per_unit $(($(herald_ticks) - herald_before)) "$triggers")
postgres_cpu=$(per_unit $(($(postgres_ticks) - postgres_before)) "$triggers")
herald_before=$(herald_ticks)
postgres_before=$(postgres_ticks)
grpc=$(loadgen --protocol grpc --grpc-connections 8 --concurrency 128 --triggers "$triggers" --no-wait |
  jq .triggers.accepted_per_s)
herald_grpc_cpu=$(per_unit $(($(herald_ticks) - herald_before)) "$triggers")
postgres_grpc_cpu=$(per_unit $(($(postgres_ticks) - postgres_before)) "$triggers")
herald_before=$(herald_ticks)
postgres_before=$(postgres_ticks)
grpc_stream=$(loadgen --protocol grpc-stream --grpc-connections 8 --concurrency 128 --triggers "$triggers" --no-wait |
  jq .triggers.accepted_per_s)
herald_stream_cpu=$(per_unit $(($(herald_ticks) - herald_before)) "$triggers")
postgres_stream_cpu=$(per_unit $(($(postgres_ticks) - postgres_before)) "$triggers")
open_loop=$(loadgen --protocol rest --rate 2000 --concurrency 512 --triggers $((10000 * scale)) --no-wait)
open_p50=$(jq .triggers.latency.p50_ms <<<"$open_loop")
open_p99=$(jq .triggers.latency.p99_ms <<<"$open_loop")

# Delivery alone: a worker process on the same cluster (bench-start.sh's server keeps it running)
# drains the backlog the runs above left; the API process stays idle meanwhile.
acknowledged=$(sql "SELECT count(*) FROM notifications")
postgres_before=$(postgres_ticks)
HERALD_ROLE=worker HERALD_DATA_DIR="$data_dir" HERALD_ADDR="127.0.0.1:$((port + 1))" RUST_LOG=warn \
  "${HERALD_BIN:-$target/release/herald}" serve >"$data_dir/worker.log" 2>&1 &
worker=$!
trap 'kill $worker 2>/dev/null; wait $worker 2>/dev/null; stop' EXIT
for _ in $(seq 1 6000); do
  [ "$(sql "SELECT count(*) FROM messages")" -ge "$acknowledged" ] && break
  kill -0 "$worker" 2>/dev/null || {
    echo "the worker process exited:" >&2
    cat "$data_dir/worker.log" >&2
    exit 1
  }
  sleep 0.1
done
worker_cpu=$(per_unit "$(cpu_ticks "$worker")" "$acknowledged")
postgres_delivery_cpu=$(per_unit $(($(postgres_ticks) - postgres_before)) "$acknowledged")
read -r delivered delivery_seconds doubled < <(sql "
  SELECT count(*), extract(epoch FROM max(created_at) - min(created_at)),
         count(*) - count(DISTINCT notification_id)
  FROM messages" | tr '|' ' ')
delivery=$(awk -v n="$delivered" -v s="$delivery_seconds" 'BEGIN { if (s > 0) printf "%.0f", n / s; else print "n/a" }')
rss_mb=$(awk '/VmRSS/ { printf "%.0f", $2 / 1024 }' "/proc/$pid/status")

echo
echo "Run of $(date -u +%F) against ${HERALD_BIN:-$target/release/herald}"
row "Measure" "Value" "Ratio"
row "---" "---" "---"
row "Unauthenticated GET (401), req/s (baseline)" "$unauthenticated" "1.000"
row "Ingest alone: triggers over REST, 128 connections, /s" "$rest" "$(ratio "$rest" "$unauthenticated")"
row "Ingest alone: triggers over gRPC, 8 × 16 streams, /s" "$grpc" "$(ratio "$grpc" "$unauthenticated")"
row "Ingest alone: triggers over 8 gRPC streams, /s" "$grpc_stream" "$(ratio "$grpc_stream" "$unauthenticated")"
row "Ingest alone: p50 / p99 at 2,000/s open loop, ms" "$open_p50 / $open_p99" ""
row "Ingest alone: Herald + PostgreSQL CPU per REST trigger, µs" "$herald_cpu + $postgres_cpu" ""
row "Ingest alone: Herald + PostgreSQL CPU per gRPC trigger, µs" "$herald_grpc_cpu + $postgres_grpc_cpu" ""
row "Ingest alone: Herald + PostgreSQL CPU per streamed trigger, µs" "$herald_stream_cpu + $postgres_stream_cpu" ""
row "Delivery alone: in-app messages from the backlog, /s" "$delivery" "$(ratio "$delivery" "$unauthenticated")"
row "Delivery alone: worker CPU per message, µs" "$worker_cpu" ""
row "Delivery alone: PostgreSQL CPU per message, µs" "$postgres_delivery_cpu" ""
row "Triggers acknowledged / messages missing / doubled" \
  "$acknowledged / $((acknowledged - delivered + doubled)) / $doubled" ""
row "API process RSS after the run, MB" "$rss_mb" ""
