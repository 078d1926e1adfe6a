#!/usr/bin/env bash
# Benchmark of subscriber search and PATCH over 100,000 subscribers (a measurement, not a test).
# Usage: scripts/bench-subscribers.sh [path-to-herald-binary]
# Needs a PostgreSQL server at $BENCH_SERVER_URL (default postgres://postgres@127.0.0.1:5432) and curl.
set -euo pipefail
herald=${1:-target/release/herald}
server=${BENCH_SERVER_URL:-postgres://postgres@127.0.0.1:5432}
database=herald_bench_subscribers
port=${BENCH_PORT:-3199}
count=${BENCH_SUBSCRIBERS:-100000}
requests=${BENCH_REQUESTS:-300}

psql -q "$server/postgres" -c "DROP DATABASE IF EXISTS $database" -c "CREATE DATABASE $database"
export DATABASE_URL="$server/$database" RUST_LOG=warn HERALD_DATA_DIR="$(mktemp -d)"
"$herald" migrate
key=$("$herald" admin create-environment --organization Bench --name bench | sed -n 's/^api key //p')
environment=$("$herald" admin list-environments | cut -f1)
organization=$(psql -At "$DATABASE_URL" -c "SELECT organization_id FROM environments")

psql -q "$DATABASE_URL" <<SQL
INSERT INTO subscribers (id, environment_id, organization_id, subscriber_id, first_name, last_name, email, phone, created_at, updated_at)
SELECT gen_random_uuid(), '$environment', '$organization', 'user-' || n, 'First' || (n % 1000), 'Last' || n,
       'user' || n || '@example.com', '+1555' || lpad(n::text, 7, '0'),
       now() - (n || ' seconds')::interval, now() - (n || ' seconds')::interval
FROM generate_series(1, $count) AS n;
ANALYZE subscribers;
SQL

HERALD_ADDR=127.0.0.1:$port "$herald" serve &
pid=$!
trap 'kill $pid 2>/dev/null' EXIT
until curl -s -o /dev/null "http://127.0.0.1:$port/v1/environments/me"; do sleep 0.2; done

measure() { # label method path [body]
  local label=$1 method=$2 path=$3 body=${4:-}
  for i in $(seq 1 "$requests"); do
    local target=${path//RANDOM_N/$(( (RANDOM * 32768 + RANDOM) % count + 1 ))}
    if [ -n "$body" ]; then
      curl -s -o /dev/null -w '%{time_total}\n' -X "$method" -H "Authorization: ApiKey $key" \
        -H 'content-type: application/json' -d "${body//RANDOM_N/$i}" "http://127.0.0.1:$port$target"
    else
      curl -s -o /dev/null -w '%{time_total}\n' -X "$method" -H "Authorization: ApiKey $key" "http://127.0.0.1:$port$target"
    fi
  done | python3 -c "
import sys
t = sorted(float(x) * 1000 for x in sys.stdin)
p = lambda q: t[min(len(t) - 1, int(q * len(t)))]
print(f'$label: n={len(t)} p50={p(0.5):.2f} ms p95={p(0.95):.2f} ms p99={p(0.99):.2f} ms')"
}

measure "search email filter (substring)" GET "/v2/subscribers?email=userRANDOM_N@&limit=10"
measure "search name filter (substring)" GET "/v2/subscribers?name=Last1234&limit=10"
measure "search unfiltered, page of 10" GET "/v2/subscribers?limit=10"
measure "search unfiltered, createdAt ASC" GET "/v2/subscribers?limit=10&orderBy=createdAt&orderDirection=ASC"
measure "PATCH subscriber" PATCH "/v2/subscribers/user-RANDOM_N" '{"firstName":"Patched RANDOM_N","data":{"n":1}}'

echo "plan of the filtered search:"
psql -At "$DATABASE_URL" -c "EXPLAIN (ANALYZE, COSTS OFF) SELECT id FROM subscribers WHERE environment_id = '$environment' AND NOT deleted AND email LIKE '%user4242@%' ORDER BY id DESC LIMIT 11"
