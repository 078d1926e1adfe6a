#!/usr/bin/env bash
# CI: what can be checked of the deployment without a container runtime (none on this machine):
#   1. deploy/docker-compose.yml parses and has its shape: PostgreSQL, the migrations run once before
#      one API and two worker processes, each with a health check, all sharing HERALD_SECRET_KEY;
#   2. the Dockerfile is multi-stage and runs as the unprivileged user 10001;
#   3. the binary serves as that user (zero-config, its private PostgreSQL started as that user),
#      answers /readyz on the metrics port, logs JSON lines carrying the request and environment ids,
#      and on SIGTERM drains and exits 0.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-target}
uid=10001

python3 - <<'PY'
import yaml
compose = yaml.safe_load(open("deploy/docker-compose.yml"))
services = compose["services"]
assert set(services) == {"postgres", "migrate", "api", "worker"}, sorted(services)
assert services["migrate"]["command"] == ["migrate"]
assert services["api"]["command"] == ["serve", "--role", "api"]
assert services["worker"]["command"] == ["serve", "--role", "worker"]
assert services["worker"]["deploy"]["replicas"] == 2
for name in ("api", "worker"):
    service = services[name]
    assert service["depends_on"]["migrate"]["condition"] == "service_completed_successfully", name
    assert "/readyz" in " ".join(service["healthcheck"]["test"]), name
    assert service["environment"]["HERALD_SECRET_KEY"].startswith("${HERALD_SECRET_KEY:?"), name
    assert service["environment"]["DATABASE_URL"].startswith("postgres://"), name
assert services["migrate"]["depends_on"]["postgres"]["condition"] == "service_healthy"
print("check-deploy: deploy/docker-compose.yml parses: postgres, migrate, api, 2 workers")
PY
[ "$(grep -c '^FROM ' Dockerfile)" = 2 ] || { echo "check-deploy: the Dockerfile is not two-stage" >&2; exit 1; }
grep -qx "USER $uid:$uid" Dockerfile || { echo "check-deploy: the Dockerfile does not run as $uid" >&2; exit 1; }

cargo build --bin herald
# The image's user; PostgreSQL's initdb needs it in the user database.
getent passwd "$uid" >/dev/null || useradd --system --uid "$uid" --user-group --no-create-home herald 2>/dev/null
work=$(mktemp -d)
chmod 755 "$work"
cp "$target/debug/herald" "$work/herald"
mkdir "$work/data"
chown "$uid:$uid" "$work/data"
port=${CHECK_DEPLOY_PORT:-3193}
metrics_port=$((port + 1))
setpriv --reuid "$uid" --regid "$uid" --clear-groups env -i PATH=/usr/bin:/bin HOME="$work/data" \
  HERALD_DATA_DIR="$work/data" HERALD_ADDR="127.0.0.1:$port" HERALD_METRICS_ADDR="127.0.0.1:$metrics_port" \
  HERALD_LOG_FORMAT=json RUST_LOG=info,tower_http=debug "$work/herald" serve >"$work/herald.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 600); do
  curl -sf -o /dev/null "http://127.0.0.1:$metrics_port/readyz" && break
  kill -0 "$pid" 2>/dev/null || { cat "$work/herald.log" >&2; exit 1; }
  sleep 0.1
done
curl -sf "http://127.0.0.1:$metrics_port/readyz" | grep -q '"status":"ready"'
[ "$(awk '/^Uid:/ { print $2 }' "/proc/$pid/status")" = "$uid" ] || { echo "check-deploy: not running as $uid" >&2; exit 1; }
# JSON log lines of a request carry its request id and, once authenticated, its environment.
curl -sf -o /dev/null -H "Authorization: ApiKey $(head -n1 "$work/data/api-key")" -H "x-request-id: check-deploy-1" \
  "http://127.0.0.1:$port/v1/environments/me"
grep '"request_id":"check-deploy-1"' "$work/herald.log" | grep -q '"environment_id":"' ||
  { echo "check-deploy: no JSON log line with the request and environment ids" >&2; cat "$work/herald.log" >&2; exit 1; }
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
[ "$status" = 0 ] || { echo "check-deploy: exit status $status after SIGTERM" >&2; cat "$work/herald.log" >&2; exit 1; }
echo "check-deploy: herald served as uid $uid, was ready, and exited 0 on SIGTERM"
