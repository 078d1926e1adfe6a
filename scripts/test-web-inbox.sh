#!/usr/bin/env bash
# CI: the <herald-inbox> web component in a real browser against a real Herald. Starts Herald
# (scripts/start-herald.sh: the debug binary on its private PostgreSQL cluster, or a new organization
# of DATABASE_URL's database), opens its demo page in headless Chromium through Playwright, and drives
# it with the server API (scripts/web_inbox_test.py): live badge, read, archive, and a Herald restart
# with a notification sent while the page is disconnected. Saves a screenshot to target/web-inbox.png.
# Installs what it needs: Debian's `chromium` when /usr/bin/chromium is missing, and Playwright (pinned,
# from PyPI; it drives that Chromium, so no browser is downloaded) in a venv under the target directory.
# WEB_INBOX_PORT (default 3198) picks the port.
set -euo pipefail
cd "$(dirname "$0")/.."

playwright_version=1.65.2
target=${CARGO_TARGET_DIR:-target}
venv="$target/web-inbox-venv"
if [ ! -x /usr/bin/chromium ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
if ! "$venv/bin/python" -c "import playwright, sys; from importlib.metadata import version; \
    sys.exit(version('playwright') != '$playwright_version')" 2>/dev/null; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "playwright==$playwright_version"
fi

port=${WEB_INBOX_PORT:-3198}
organization=herald-web-inbox
# shellcheck source=scripts/start-herald.sh
source scripts/start-herald.sh
if [ -n "${DATABASE_URL:-}" ]; then # the private cluster's environment is seeded with this one
  curl -sf -o /dev/null -X POST "$url/v1/integrations" -H "Authorization: ApiKey $HERALD_API_KEY" \
    -H 'content-type: application/json' -d '{"providerId": "svc", "channel": "in_app", "active": true}'
fi

# The browser test restarts Herald the way start-herald.sh started it (same port, same data directory)
# and writes the new process id here, so that start-herald.sh's exit trap stops that one.
restarted="$work/herald.pid"
stop_restarted() {
  if [ -s "$restarted" ]; then pid=$(cat "$restarted"); fi
  stop
}
trap stop_restarted EXIT

HERALD_URL=$url HERALD_PID=$pid HERALD_BIN=$herald HERALD_WORK=$work HERALD_PID_FILE=$restarted \
  HERALD_PRIVATE_CLUSTER=$([ -n "${DATABASE_URL:-}" ] && echo 0 || echo 1) \
  WEB_INBOX_SCREENSHOT=target/web-inbox.png "$venv/bin/python" scripts/web_inbox_test.py
echo "web inbox: all passed"
