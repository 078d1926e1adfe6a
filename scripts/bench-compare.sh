#!/usr/bin/env bash
# Compares two server builds on the request path (a measurement, not a test): runs alternate between
# them (A, B, B, A, A, B, …), each on a fresh private cluster: the 401 baseline, 5,000 one-recipient REST
# triggers of warm-up, `ANALYZE`, then 20,000 REST triggers delivered in-app (bench-trigger.sh's REST
# run). Per run: delivered/s and its ratio to the 401, messages missing or doubled, Herald's and
# PostgreSQL's CPU per trigger delivered, WAL bytes per trigger (deterministic: the figure to trust on
# a noisy machine) and Herald's RSS after the run.
# Usage: scripts/bench-compare.sh BUILD_A BUILD_B [rounds]   (herald binaries; rounds default 2)
#   BENCH_WARM_UP=0 skips the warm-up and ANALYZE (a first run on empty tables); BENCH_PAYLOAD_BYTES=n
#   pads every trigger's payload with n characters (loadgen --payload-bytes).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || {
  echo "usage: $0 BUILD_A BUILD_B [rounds]" >&2
  exit 2
}
triggers=20000
padding=${BENCH_PAYLOAD_BYTES:-0}

run_once() { # herald binary
  (
    export HERALD_BIN=$1
    # shellcheck source=scripts/bench-start.sh
    source scripts/bench-start.sh >/dev/null 2>&1
    loadgen() { "$target/release/loadgen" --url "$url" --json "$@" 2>/dev/null; }
    baseline=$(loadgen --request unauthenticated --concurrency 128 --triggers 50000 | jq .triggers.accepted_per_s)
    if [ "${BENCH_WARM_UP:-1}" = 1 ]; then
      loadgen --protocol rest --concurrency 128 --triggers 5000 --wait-timeout-secs 600 --payload-bytes "$padding" >/dev/null
      psql -qAt "$database_url" -c "ANALYZE" >/dev/null
    fi
    lsn=$(psql -qAt "$database_url" -c "SELECT pg_current_wal_lsn()")
    herald_before=$(herald_ticks)
    postgres_before=$(postgres_ticks)
    report=$(loadgen --protocol rest --concurrency 128 --triggers "$triggers" --wait-timeout-secs 600 \
      --payload-bytes "$padding")
    herald_used=$(($(herald_ticks) - herald_before))
    postgres_used=$(($(postgres_ticks) - postgres_before))
    wal=$(psql -qAt "$database_url" -c "SELECT round(pg_wal_lsn_diff(pg_current_wal_lsn(), '$lsn') / $triggers)")
    rss=$(awk '/VmRSS/ { printf "%.0f", $2 / 1024 }' "/proc/$pid/status")
    jq -r --arg build "$1" --argjson baseline "$baseline" --argjson hz "$(getconf CLK_TCK)" \
      --argjson herald "$herald_used" --argjson postgres "$postgres_used" --argjson wal "$wal" --argjson rss "$rss" \
      --argjson n "$triggers" '
      "| \($build) | \($baseline | round) | \(.delivery.messages_per_s | round) (\(.delivery.messages_per_s / $baseline * 1000 | round / 1000)) | \(.delivery.missing_messages + .delivery.extra_messages) | \($herald * 1e6 / $hz / $n | round) | \($postgres * 1e6 / $hz / $n | round) | \($wal) | \($rss) |"' \
      <<<"$report"
  )
}

echo "| Build | 401 req/s | Delivered/s (÷ 401) | Missing or doubled | Herald µs/trigger | PostgreSQL µs/trigger | WAL bytes/trigger | RSS MB |"
echo "|---|---|---|---|---|---|---|---|"
for round in $(seq 1 "${3:-2}"); do
  if [ $((round % 2)) = 1 ]; then order=("$1" "$2"); else order=("$2" "$1"); fi
  for build in "${order[@]}"; do run_once "$build"; done
done
