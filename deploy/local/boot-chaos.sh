#!/usr/bin/env bash
# Issue 23's boot chaos runs, on the compiled build (npm run build first), one command:
#   deploy/local/boot-chaos.sh [PORT_BASE]    (default 25000; uses PORT_BASE..PORT_BASE+9)
# For each tier (api, events, worker, all):
#   1. Redis down at boot: started with REDIS_URL on a closed port; after 20 s a redis-server
#      appears there; reports /readyz before and the seconds until ready after.
#   2. PostgreSQL down at boot: DATABASE_URL on a closed port; after 20 s a TCP relay to the
#      machine's PostgreSQL appears there (the shared server is never stopped).
#   Then SIGTERM: exit code and seconds. Log lines: total, warnings, lines that are not JSON.
# Last: a worker given SIGTERM 10 s into a Redis outage.
set -uo pipefail
cd "$(dirname "$0")/../.."
BASE=${1:-25000}
HTTP=$BASE OPS=$((BASE + 1)) RPORT=$((BASE + 2)) PPORT=$((BASE + 3))
PG=${PG_URL:-postgresql://postgres@127.0.0.1:5432}
DB=boot_chaos_$$
LOGDIR=$(mktemp -d)
createdb -h 127.0.0.1 -U postgres "$DB"
DATABASE_URL=$PG/$DB node dist/apps/cli/main.js migrate >/dev/null
trap 'dropdb -h 127.0.0.1 -U postgres "$DB" 2>/dev/null; rm -rf "$LOGDIR"' EXIT

run_tier() { # tier database_url redis_url log
  DATABASE_URL=$2 REDIS_URL=$3 REDIS_PREFIX="bootchaos$$:" API_PORT=$HTTP EVENTS_PORT=$HTTP \
    METRICS_PORT=$OPS LOG_FORMAT=json LOG_LEVEL=info EXTERNAL_HOST=localhost:$HTTP \
    node dist/apps/$1/main.js >"$4" 2>&1 &
  PID=$!
}
relay_pg() { # a TCP relay from $PPORT to PostgreSQL
  node -e "require('net').createServer(c=>{const u=require('net').connect(5432,'127.0.0.1');c.pipe(u).pipe(c);c.on('error',()=>{});u.on('error',()=>{})}).listen($PPORT,'127.0.0.1')" &
  SPID=$!
}
wait_ready() { # seconds until /readyz answers 200 (max 60)
  local t0; t0=$(date +%s.%N)
  for _ in $(seq 1 600); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "localhost:$OPS/readyz")" = 200 ] && break
    sleep 0.1
  done
  echo "$(date +%s.%N) - $t0" | bc
}
stop_tier() { # pid -> STOPPED="exit CODE in SECONDS s" (143: killed by the signal itself)
  local t0 code; t0=$(date +%s.%N)
  kill -TERM "$1"; wait "$1"; code=$?
  STOPPED="exit $code in $(echo "$(date +%s.%N) - $t0" | bc | cut -c1-4) s"
}
summary() { # log
  local total warn nonjson
  total=$(wc -l <"$1"); warn=$(grep -c '"level":"\(warn\|error\)"' "$1")
  nonjson=$(grep -vc '^{' "$1")
  echo "log lines $total, warnings $warn ($(grep -o '"message":"[^"]*unreachable"' "$1" | sort | uniq -c | tr -s ' ' | paste -sd,)), non-JSON $nonjson"
}

for tier in api events worker all; do
  for store in redis postgres; do
    log=$LOGDIR/$tier-$store.log
    if [ $store = redis ]; then run_tier $tier "$PG/$DB" "redis://127.0.0.1:$RPORT" "$log"
    else run_tier $tier "postgresql://postgres@127.0.0.1:$PPORT/$DB" "redis://127.0.0.1:6379" "$log"; fi
    pid=$PID
    sleep 20
    before=$(curl -s -w ' %{http_code}' "localhost:$OPS/readyz")
    alive=$(kill -0 "$pid" 2>/dev/null && echo up || echo DEAD)
    if [ $store = redis ]; then
      redis-server --port $RPORT --bind 127.0.0.1 --save '' --appendonly no >/dev/null & SPID=$!
    else relay_pg; fi
    spid=$SPID
    ready=$(wait_ready)
    stop_tier "$pid"; stopped=$STOPPED
    kill "$spid"; wait "$spid" 2>/dev/null
    echo "$tier, $store down at boot: $alive after 20 s; /readyz $before"
    echo "  ready ${ready:0:4} s after $store appeared; SIGTERM: $stopped; $(summary "$log")"
  done
done

log=$LOGDIR/worker-sigterm.log
redis-server --port $RPORT --bind 127.0.0.1 --save '' --appendonly no >/dev/null & spid=$!
sleep 0.5
run_tier worker "$PG/$DB" "redis://127.0.0.1:$RPORT" "$log"
pid=$PID
ready=$(wait_ready)
kill -9 $spid; wait $spid 2>/dev/null
sleep 10
stop_tier "$pid"
echo "worker SIGTERM 10 s into a Redis outage: $STOPPED; $(summary "$log")"
