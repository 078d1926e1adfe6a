# Sourced by the CI scripts that run something against a live Herald (test-clients.sh, schemathesis.sh):
# builds the debug binary `cargo test --no-run` builds beside the integration tests (CI's `cargo test`
# then compiles nothing more, where a `cargo build` would compile Herald a second time: the test build
# has other features and profile) and starts it on 127.0.0.1:$port, where the caller set `port`.
# Herald runs on its private PostgreSQL cluster in a temporary data directory, which seeds an environment
# and writes its API key; with DATABASE_URL set it uses that database instead, in a new organization
# named after $organization with a `development` environment. Stops Herald (and its cluster) on exit.
# Sets url, herald (the binary), work (a temporary directory; Herald's log is $work/herald.log) and
# pid, and exports HERALD_API_KEY. Extra settings for the server: the HERALD_* variables exported
# before sourcing.
url="http://127.0.0.1:$port"
herald=${CARGO_TARGET_DIR:-target}/debug/herald

cargo test --no-run
work=$(mktemp -d)
chmod 755 "$work" # as root, Herald runs PostgreSQL as `postgres`, which must reach the cluster inside
pid=
stop() {
  if [ -n "$pid" ]; then
    kill "$pid" 2>/dev/null && { wait "$pid" 2>/dev/null || true; } # SIGTERM: stops the cluster too
  fi
  rm -rf "$work"
}
trap stop EXIT

if [ -n "${DATABASE_URL:-}" ]; then
  HERALD_API_KEY=$("$herald" admin create-environment --organization "$organization-$(date +%s)-$$" \
    --name development | sed -n 's/^api key //p')
fi
HERALD_DATA_DIR="$work/data" HERALD_ADDR="127.0.0.1:$port" RUST_LOG=${RUST_LOG:-warn} \
  "$herald" serve >"$work/herald.log" 2>&1 &
pid=$!
for attempt in $(seq 1 600); do # a first start runs initdb: allow up to 60 s
  if [ -z "${DATABASE_URL:-}" ] && [ -s "$work/data/api-key" ]; then
    HERALD_API_KEY=$(head -n1 "$work/data/api-key")
  fi
  if [ -n "${HERALD_API_KEY:-}" ] &&
    curl -sf -o /dev/null -H "Authorization: ApiKey $HERALD_API_KEY" "$url/v1/environments/me"; then
    break
  fi
  if ! kill -0 "$pid" 2>/dev/null || [ "$attempt" = 600 ]; then
    echo "herald did not start:" >&2
    cat "$work/herald.log" >&2
    exit 1
  fi
  sleep 0.1
done
export HERALD_API_KEY
