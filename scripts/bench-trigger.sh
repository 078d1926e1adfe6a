#!/usr/bin/env bash
# Benchmark of the trigger path (a measurement, not a test): trigger latency and throughput, and how
# long the in-app messages of the seeded `welcome` workflow take to exist, over REST and gRPC.
# Usage: scripts/bench-trigger.sh [extra loadgen options…]   (e.g. --triggers 5000; later options win)
# Starts target/release/herald on its private PostgreSQL cluster in a temporary HERALD_DATA_DIR (the
# first start seeds an environment, the `welcome` workflow and writes the API key), so it needs the
# PostgreSQL server binaries Herald itself needs, and curl. BENCH_PORT (default 3198) picks the port.
set -euo pipefail
cd "$(dirname "$0")/.."
port=${BENCH_PORT:-3198}
url="http://127.0.0.1:$port"

cargo build --release --bin herald --bin loadgen
data_dir=$(mktemp -d)
chmod 755 "$data_dir" # as root, Herald runs PostgreSQL as `postgres`, which must reach the cluster inside
log="$data_dir/herald.log"
unset DATABASE_URL # the seeding (workflow, API key file) happens only on the private cluster
HERALD_DATA_DIR="$data_dir" HERALD_ADDR="127.0.0.1:$port" RUST_LOG=${RUST_LOG:-warn} \
  target/release/herald serve >"$log" 2>&1 &
pid=$!
stop() {
  kill "$pid" 2>/dev/null && { wait "$pid" 2>/dev/null || true; } # SIGTERM: graceful stop, also of the cluster
  rm -rf "$data_dir"
}
trap stop EXIT

ready=
for _ in $(seq 1 600); do # first start runs initdb: allow up to 60 s
  if [ -s "$data_dir/api-key" ] &&
    curl -sf -o /dev/null -H "Authorization: ApiKey $(head -n1 "$data_dir/api-key")" "$url/v1/environments/me"; then
    ready=1
    break
  fi
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "herald exited during start-up:" >&2
    cat "$log" >&2
    exit 1
  fi
  sleep 0.1
done
if [ -z "$ready" ]; then
  echo "herald did not become ready within 60 s:" >&2
  cat "$log" >&2
  exit 1
fi
HERALD_API_KEY=$(head -n1 "$data_dir/api-key")
export HERALD_API_KEY

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
