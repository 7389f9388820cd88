#!/usr/bin/env bash
# Runs the README's "First calls" twice against a fresh `npm start`, so the README's commands stay
# true and stay safe to repeat. The block is read from README.md itself (between the
# first-calls:start and first-calls:end markers), not copied here, so the two cannot drift apart.
# The service runs in a temporary LOCAL_DIR on a free port; every HTTP answer must be a 2xx.
set -euo pipefail
cd "$(dirname "$0")/../.."

block=$(awk '/<!-- first-calls:start/ {on = 1; next} /<!-- first-calls:end/ {on = 0} on' README.md | sed '/^```/d')
if [ -z "$block" ]; then
  echo "first-calls: README.md has no <!-- first-calls:start --> ... <!-- first-calls:end --> block" >&2
  exit 1
fi

LOCAL_DIR=$(mktemp -d "${TMPDIR:-/tmp}/first-calls.XXXXXX")
export LOCAL_DIR
port=$(node -e "const s = require('node:net').createServer(); s.listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); })")
log="$LOCAL_DIR/service.log"

# Its own session, so that whatever is left of it at the end can be stopped as one group.
PORT=$port setsid npm start >"$log" 2>&1 &
service=$!

stop_service() {
  # SIGTERM to the node process that runs bin/local.ts (npm -> sh -> tsx -> node, each naming
  # it), as a clean stop: it records its stop, then stops DynamoDB Local (in a group of its own).
  # (npm exits on SIGTERM without passing it on; a terminal's SIGINT to the whole group stops the
  # service as cleanly, but npm then ends by the signal, which this would report as a failure.)
  local pid=$service next
  while next=$(pgrep -P "$pid" -f 'bin/local\.ts' | head -n 1) && [ -n "$next" ]; do pid=$next; done
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 60); do kill -0 -- "-$service" 2>/dev/null || break; sleep 0.5; done
  kill -KILL -- "-$service" 2>/dev/null || true   # whatever of its group is still there
  local stopped=0
  wait "$service" 2>/dev/null || stopped=$?
  if [ "$stopped" -ne 0 ]; then
    echo "first-calls: warning: npm start exited with $stopped when stopped; the end of its log:" >&2
    tail -n 20 "$log" >&2
  fi
  rm -rf "$LOCAL_DIR"
}
trap stop_service EXIT

echo "first-calls: npm start on port $port, LOCAL_DIR=$LOCAL_DIR"
for _ in $(seq 1 240); do
  if ! kill -0 "$service" 2>/dev/null; then
    echo "first-calls: npm start exited before it was ready:" >&2
    cat "$log" >&2
    exit 1
  fi
  if [ -s "$LOCAL_DIR/bootstrap.json" ] && curl -sf -o /dev/null "http://127.0.0.1:$port/openapi.json"; then break; fi
  sleep 0.5
done
if [ ! -s "$LOCAL_DIR/bootstrap.json" ]; then
  echo "first-calls: npm start was not ready after 120 s:" >&2
  cat "$log" >&2
  exit 1
fi

# The block as the README shows it, with curl failing on any answer that is not a 2xx (the
# status line is read from the headers, so the block's own output options are left alone).
script="$LOCAL_DIR/first-calls.sh"
cat >"$script" <<'HEADER'
set -euo pipefail
curl() {
  local headers status url=''
  headers=$(mktemp)
  command curl -D "$headers" "$@" || { rm -f "$headers"; echo "first-calls: curl failed" >&2; return 1; }
  status=$(awk '/^HTTP\// {s = $2} END {print s}' "$headers")
  rm -f "$headers"
  for arg in "$@"; do case $arg in http://* | https://*) url=$arg ;; esac; done
  case $status in
    2??) ;;
    *) printf '\nfirst-calls: HTTP %s from %s\n' "${status:-none}" "$url" >&2; return 1 ;;
  esac
}
HEADER
printf '%s\n' "$block" >>"$script"

for run in 1 2; do
  echo "first-calls: run $run"
  if ! bash "$script"; then
    echo "first-calls: run $run failed; the service's log:" >&2
    tail -n 40 "$log" >&2
    exit 1
  fi
done
echo "first-calls: both runs passed"
