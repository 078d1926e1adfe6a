#!/usr/bin/env bash
# Benchmark of the trigger path (a measurement, not a test): trigger latency and throughput, and how
# long the in-app messages of the seeded `welcome` workflow take to exist, over REST and gRPC.
# Usage: scripts/bench-trigger.sh [extra loadgen options…]   (e.g. --triggers 5000; later options win)
# Starts Herald on its private cluster (see scripts/bench-start.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/bench-start.sh
source scripts/bench-start.sh

status=0
run() { # label, loadgen options…
  echo
  echo "=== $1"
  shift
  target/release/loadgen --url "$url" "$@" || status=1
}
run "REST, closed loop, concurrency 64" --protocol rest --concurrency 64 "$@"
run "gRPC, closed loop, concurrency 64" --protocol grpc --concurrency 64 "$@"
run "REST, open loop at 2000 triggers/s (latency from the schedule)" --protocol rest --rate 2000 --concurrency 512 "$@"
exit $status
