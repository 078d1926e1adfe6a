# Sourced by the benchmark scripts: builds the release binaries and starts $target/release/herald on its
# private PostgreSQL cluster in a temporary HERALD_DATA_DIR (the first start seeds an environment, the
# `welcome` workflow and writes the API key); stops both on exit. Sets url, data_dir, pid and
# database_url (the private cluster's database, for psql) and target (the build directory:
# $CARGO_TARGET_DIR, else ./target), exports HERALD_API_KEY, and defines herald_ticks and
# postgres_ticks (CPU used so far). Needs the PostgreSQL server binaries Herald itself needs, and curl. BENCH_PORT (default 3198) picks the port;
# other HERALD_* settings exported before sourcing (HERALD_METRICS_ADDR…) reach the server;
# HERALD_BIN another server binary to start (an older build, for a before/after comparison).
port=${BENCH_PORT:-3198}
url="http://127.0.0.1:$port"
target=${CARGO_TARGET_DIR:-target}
# BENCH_PROFILE=dev starts a debug build instead (for checks that measure nothing, such as CI's).
profile=${BENCH_PROFILE:-release}
build_dir=$([ "$profile" = dev ] && echo debug || echo "$profile")

cargo build --profile "$profile" --bin herald --bin loadgen
data_dir=$(mktemp -d)
chmod 755 "$data_dir" # as root, Herald runs PostgreSQL as `postgres`, which must reach the cluster inside
log="$data_dir/herald.log"
unset DATABASE_URL # the seeding (workflow, API key file) happens only on the private cluster
HERALD_DATA_DIR="$data_dir" HERALD_ADDR="127.0.0.1:$port" RUST_LOG=${RUST_LOG:-warn} \
  "${HERALD_BIN:-$target/$build_dir/herald}" serve >"$log" 2>&1 &
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

port_of_cluster=$(sed -n 4p "$data_dir/postgres/postmaster.pid")
database_url="postgres://postgres@127.0.0.1:$port_of_cluster/herald"

# CPU time used so far, in clock ticks (user + system; `getconf CLK_TCK` a second): Herald's process, and
# the private cluster's postmaster and its live children (pooled connections outlive a run, so the
# backends' time is all there). Read around a run, they give CPU per unit of work, which the machine's
# noise moves far less than a rate.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
herald_ticks() { cpu_ticks "$pid"; }
postgres_ticks() {
  local postmaster total=0 process
  postmaster=$(head -n1 "$data_dir/postgres/postmaster.pid")
  for process in "$postmaster" $(pgrep -P "$postmaster"); do
    total=$((total + $(cpu_ticks "$process")))
  done
  echo "$total"
}

# Starts examples/provider_fake.rs standing in for the providers (HTTP on $http_port, SMTP on $smtp_port,
# each answer after $1 ms; `stats` reads what it counted), stopped with Herald on exit.
start_provider_fake() {
  cargo build --release --example provider_fake
  http_port=$((port + 1))
  smtp_port=$((port + 2))
  "$target/release/examples/provider_fake" "$http_port" "$smtp_port" "$1" &
  fake=$!
  trap 'kill $fake 2>/dev/null; stop' EXIT
}
stats() { curl -sf "http://127.0.0.1:$http_port/stats"; }
