#!/usr/bin/env bash
# Idle resident memory and CPU per tier (not a test). Starts api, events and worker one at a time
# on loopback against a scratch database, lets each settle, and prints the RSS of its process tree
# (tsx's CLI runs the program in a child process, so the tree is what the tier costs) and the CPU
# the tree then uses over IDLE_CPU_SECONDS (20) with nothing to do, in ms per second: what a
# replica costs before its first request, for every replica an operator adds.
#   bench/idle-rss.sh node   # the compiled build: node dist/apps/<tier>/main.js (npm run build first)
#   bench/idle-rss.sh tsx    # the TypeScript sources through tsx, as npm start did before the build
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:?usage: bench/idle-rss.sh node|tsx}
settle=${IDLE_RSS_SETTLE_SECONDS:-25}
cpu_window=${IDLE_CPU_SECONDS:-20}
export DATABASE_URL=postgresql://postgres@127.0.0.1:5432/chat_idle_rss
export REDIS_PREFIX=idle-rss: API_PORT=19591 EVENTS_PORT=19592 LOG_LEVEL=warn

command_for() {
  case $mode in
    node) echo "node dist/apps/$1/main.js" ;;
    tsx) echo "node_modules/.bin/tsx apps/$1/main.ts" ;;
    *) echo "unknown mode $mode" >&2; exit 2 ;;
  esac
}

tree_rss_kib() {
  local total=0 pid
  for pid in $1 $(pgrep -P "$1" || true); do
    total=$((total + $(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)))
  done
  echo "$total"
}

# user + system CPU of the tree so far, in clock ticks
tree_cpu_ticks() {
  local total=0 pid fields
  for pid in $1 $(pgrep -P "$1" || true); do
    fields=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null) || continue
    total=$((total + $(echo "$fields" | awk '{print $12 + $13}')))
  done
  echo "$total"
}

$(command_for cli) migrate >/dev/null
for tier in api events worker; do
  $(command_for "$tier") &
  pid=$!
  sleep "$settle"
  rss_mib=$(($(tree_rss_kib "$pid") / 1024))
  before=$(tree_cpu_ticks "$pid")
  sleep "$cpu_window"
  after=$(tree_cpu_ticks "$pid")
  cpu_ms_per_s=$(awk -v t=$((after - before)) -v hz="$(getconf CLK_TCK)" -v s="$cpu_window" \
    'BEGIN { printf "%.1f", t * 1000 / hz / s }')
  echo "$tier $mode $rss_mib MiB, idle CPU $cpu_ms_per_s ms/s"
  kill -TERM "$pid"
  wait "$pid" || true
done
