#!/usr/bin/env bash
# CI: what a live Herald serves on `/metrics` after some traffic passes `promtool check metrics` (the
# exposition format and Prometheus's naming rules). Installs Debian's `prometheus` package for
# promtool when it is missing. Starts a debug build on its private cluster (scripts/bench-start.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v promtool >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus >/dev/null
fi
metrics_port=${METRICS_PORT:-3196}
export HERALD_METRICS_ADDR="127.0.0.1:$metrics_port"
export BENCH_PROFILE=dev BENCH_PORT=${BENCH_PORT:-3195}
# shellcheck source=scripts/bench-start.sh
source scripts/bench-start.sh

# Traffic for every family: triggers (ingest, jobs, in-app delivery), a read, a refused request.
"$target/debug/loadgen" --url "$url" --triggers 20 --concurrency 4 >/dev/null
curl -sf -o /dev/null "$url/v1/environments/me" -H "Authorization: ApiKey $HERALD_API_KEY"
curl -s -o /dev/null "$url/v1/environments/me"

scrape=$(curl -sf "http://127.0.0.1:$metrics_port/metrics")
for family in herald_request_duration_seconds herald_triggers_total herald_jobs_total herald_queued_jobs \
  herald_oldest_due_job_age_seconds herald_ingest_flush_seconds herald_ingest_batches_total herald_db_pool_connections \
  herald_db_pool_wait_seconds process_resident_memory_bytes; do
  grep -q "^$family" <<<"$scrape" || { echo "check-metrics: no $family in the scrape" >&2; exit 1; }
done
promtool check metrics <<<"$scrape"
echo "check-metrics: $(grep -vc '^#' <<<"$scrape") samples pass promtool check metrics"
