#!/usr/bin/env bash
# Soak (a measurement, not a test): mixed load for a long time while every database connection of
# Herald is terminated at a fixed interval. Reports, per kind of request, how many were answered, the
# 5xx answered inside a fault window (from a termination to FAULT_WINDOW_S after it: a request waiting
# when the connections were cut fails then) and outside one (goal 0), the other failures (4xx,
# unanswered); every acknowledged trigger's in-app message (missing or doubled: goal 0); and Herald's
# resident memory at start, peak and end (goal: flat).
# The load, open loop: triggers of the seeded `welcome` workflow over REST (1 recipient of 1,000),
# message listings, mark-as read and mark-as unread of the same 100 messages at once, and set-primary
# on three email integrations of one channel at once.
# Usage: scripts/soak.sh [minutes (default 20)] [seconds between faults (default 120)]
# Rates: TRIGGERS_PER_S (default 200), READS_PER_S (200), MARKS_PER_S (10 each way),
# SET_PRIMARY_PER_S (2 per integration). Starts Herald on its private cluster (scripts/bench-start.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/bench-start.sh
source scripts/bench-start.sh
minutes=${1:-20}
fault_every=${2:-120}
fault_window=${FAULT_WINDOW_S:-10}
triggers_per_s=${TRIGGERS_PER_S:-200}
reads_per_s=${READS_PER_S:-200}
marks_per_s=${MARKS_PER_S:-10}
set_primary_per_s=${SET_PRIMARY_PER_S:-2}
seconds=$((minutes * 60))
work=$(mktemp -d)
trap 'rm -rf "$work"; stop' EXIT

api() { # method path [json body]: the answer body; fails on a non-2xx answer
  curl -sf -X "$1" -H "Authorization: ApiKey $HERALD_API_KEY" -H 'Content-Type: application/json' \
    ${3:+--data "$3"} "$url$2"
}
loadgen() { "$target/release/loadgen" --url "$url" --json "$@" 2>>"$work/loadgen.log"; }
rss_mb() { awk '/VmRSS/ { printf "%.0f", $2 / 1024 }' "/proc/$pid/status"; }

# Set-up: three email integrations to move the primary between; 100 in-app messages of loadgen-0.
integrations=()
for n in 1 2 3; do
  body="{\"providerId\": \"sendgrid\", \"channel\": \"email\", \"name\": \"Soak $n\", \"active\": true,
    \"credentials\": {\"apiKey\": \"soak\", \"from\": \"soak@example.com\"}}"
  integrations+=("$(api POST /v1/integrations "$body" | jq -r ._id)")
done
loadgen --subscribers 1 --triggers 100 --concurrency 8 >/dev/null
message_ids=$(api GET "/v1/messages?subscriberId=loadgen-0&limit=100" | jq -c '[.data[]._id]')
[ "$(jq length <<<"$message_ids")" = 100 ] || { echo "the set-up messages are missing" >&2; exit 1; }

rss_start=$(rss_mb)
echo "soak: ${minutes} min, connections terminated every ${fault_every} s; Herald RSS at start ${rss_start} MB" >&2
mark_as() { echo "{\"messageId\": $message_ids, \"markAs\": \"$1\"}"; }
loads=()
open_loop() { # name rate, loadgen options…: runs for the soak's duration
  local name=$1 rate=$2
  shift 2
  loadgen --rate "$rate" --triggers $((rate * seconds)) --concurrency 256 "$@" >"$work/$name.json" &
  loads+=($!)
}
open_loop triggers "$triggers_per_s" --wait-timeout-secs 900
open_loop reads "$reads_per_s" --request call --call 'GET /v1/messages?subscriberId={subscriber}&limit=10'
open_loop mark-read "$marks_per_s" --request call --call 'POST /v1/subscribers/loadgen-0/messages/mark-as' \
  --body "$(mark_as read)"
open_loop mark-unread "$marks_per_s" --request call --call 'POST /v1/subscribers/loadgen-0/messages/mark-as' \
  --body "$(mark_as unread)"
for n in 0 1 2; do
  open_loop "set-primary-$n" "$set_primary_per_s" --request call \
    --call "POST /v1/integrations/${integrations[$n]}/set-primary"
done

# Faults and memory samples until the load ends (the trigger run then waits for its messages).
faults=()
rss_peak=$rss_start
started=$(date +%s)
next_fault=$((started + fault_every))
while [ $(($(date +%s) - started)) -lt "$seconds" ]; do
  sleep 5
  rss=$(rss_mb)
  [ "$rss" -gt "$rss_peak" ] && rss_peak=$rss
  if [ "$(date +%s)" -ge "$next_fault" ] && [ $((next_fault - started)) -lt "$seconds" ]; then
    faults+=("$(date +%s)")
    terminated=$(psql -qtA "$database_url" -c "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
      WHERE datname = 'herald' AND backend_type = 'client backend' AND pid <> pg_backend_pid()")
    echo "soak: $(date -u +%T) terminated $terminated connections; RSS ${rss} MB" >&2
    next_fault=$((next_fault + fault_every))
  fi
done
wait "${loads[@]}" || true # a run with failures exits non-zero: the report counts them
rss_end=$(rss_mb)

# The report: 5xx split by whether the second they were answered in falls inside a fault window.
faults_json=$(printf '%s\n' "${faults[@]}" | jq -s .)
row() { printf '| %-22s | %9s | %9s | %11s | %12s | %14s |\n' "$@"; }
echo
echo "Soak of $(date -u +%F): ${minutes} min, ${#faults[@]} faults (every ${fault_every} s, window ${fault_window} s)"
row "Requests" "sent" "answered" "5xx in fault" "5xx outside" "other failures"
row "---" "---" "---" "---" "---" "---"
for file in "$work"/*.json; do
  jq -r --argjson faults "$faults_json" --argjson window "$fault_window" '
    (.triggers.started_at | sub("\\.[0-9]+"; "") | fromdateiso8601) as $start
    | [.triggers.failures_by_second | to_entries[] | (.key | tonumber + $start) as $at
       | (.value | to_entries[]) | {$at, kind: .key, count: .value}] as $failures
    | def in_fault: . as $at | any($faults[]; $at >= . and $at < . + $window);
      def count(f): [$failures[] | select(f) | .count] | add // 0;
      def unanswered: . == "timeout" or . == "connection error" or . == "transport error";
    [.triggers.sent, .triggers.sent - count(.kind | unanswered),
     count((.kind | startswith("HTTP 5")) and (.at | in_fault)),
     count((.kind | startswith("HTTP 5")) and (.at | in_fault | not)),
     count(.kind | startswith("HTTP 5") | not)] | @tsv' "$file" |
    while IFS=$'\t' read -r sent answered inside outside other; do
      row "$(basename "$file" .json)" "$sent" "$answered" "$inside" "$outside" "$other"
    done
done
echo
jq -r '.delivery | "Triggers: \(.expected_messages) messages expected, \(.missing_messages) missing, \(.extra_messages) doubled"' \
  "$work/triggers.json"
echo "Herald RSS: ${rss_start} MB at start, ${rss_peak} MB peak, ${rss_end} MB at end"
echo "Failures by kind:"
jq -r '"  \(input_filename | split("/") | last): \(.triggers.failures)"' "$work"/*.json
echo "Herald's warnings and errors, by message (the most frequent first):"
sed -E 's/\x1b\[[0-9;]*m//g' "$log" | grep -E ' (WARN|ERROR) ' | sed -E 's/^[^ ]+ +//; s/[0-9a-f-]{36}//g' |
  cut -c1-200 | sort | uniq -c | sort -rn | head -15
