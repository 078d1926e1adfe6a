#!/usr/bin/env bash
# Benchmark of the retention sweep (a measurement, not a test): N one-recipient triggers of the seeded
# in-app workflow are delivered, aged 31 days in the database, then deleted by `herald admin sweep` (the
# sweep the worker processes run every 10 minutes) with their jobs, execution details and messages.
# Reports the sweep's time and rate, and the trigger rate of the same run as the baseline.
# Usage: scripts/bench-retention.sh [notifications]   (default 100000). Needs psql.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/bench-start.sh
source scripts/bench-start.sh
count=${1:-100000}

report=$("$target/release/loadgen" --url "$url" --json --concurrency 128 --triggers "$count" --wait-timeout-secs 900)
ingest=$(jq -r '.triggers.accepted_per_s' <<<"$report")
psql -q "$database_url" -c "UPDATE notifications SET created_at = created_at - interval '31 days';
                             UPDATE trigger_transactions SET created_at = created_at - interval '31 days'" \
  -c "VACUUM ANALYZE"
rows=$(psql -tA "$database_url" -c "SELECT (SELECT count(*) FROM notifications) || ' notifications, ' ||
  (SELECT count(*) FROM jobs) || ' jobs, ' || (SELECT count(*) FROM execution_details) || ' details, ' ||
  (SELECT count(*) FROM messages) || ' messages'")
echo "before the sweep: $rows"
started=$(date +%s.%N)
DATABASE_URL="$database_url" "$target/release/herald" admin sweep
elapsed=$(echo "$(date +%s.%N) - $started" | bc)
left=$(psql -tA "$database_url" -c "SELECT count(*) FROM notifications")
rate=$(awk -v n="$count" -v s="$elapsed" 'BEGIN { printf "%.0f", n / s }')
echo "sweep: $count notifications in ${elapsed} s = $rate notifications/s ($left left);" \
  "ingest in the same run: $ingest triggers/s; ratio $(awk -v a="$rate" -v b="$ingest" 'BEGIN { printf "%.2f", a / b }')"
