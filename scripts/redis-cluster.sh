#!/usr/bin/env bash
# A throwaway Redis Cluster on loopback for tests: 3 masters and 3 replicas of Debian's
# redis-server, no persistence, state in a temporary directory.
#   scripts/redis-cluster.sh start   prints the seed nodes (REDIS_CLUSTER_NODES) on stdout
#   scripts/redis-cluster.sh stop    kills every node and removes the directory
# REDIS_CLUSTER_BASE_PORT (default 17000) picks the ports: base .. base+5.
set -euo pipefail

BASE=${REDIS_CLUSTER_BASE_PORT:-17000}
STATE=${TMPDIR:-/tmp}/chat-redis-cluster-$BASE
PORTS=$(seq "$BASE" $((BASE + 5)))

stop() {
  [ -d "$STATE" ] || return 0
  for pidfile in "$STATE"/*.pid; do
    [ -f "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    kill -9 "$pid" 2>/dev/null || true
  done
  rm -rf "$STATE"
}

start() {
  stop
  mkdir -p "$STATE"
  for port in $PORTS; do
    mkdir -p "$STATE/$port"
    # cluster-node-timeout 2000: a dead master is failed over in a few seconds, not 15.
    redis-server --port "$port" --bind 127.0.0.1 --dir "$STATE/$port" --daemonize yes \
      --pidfile "$STATE/$port.pid" --logfile "$STATE/$port.log" \
      --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 2000 \
      --save "" --appendonly no
  done
  for port in $PORTS; do
    for _ in $(seq 1 50); do
      redis-cli -p "$port" ping >/dev/null 2>&1 && [ -f "$STATE/$port.pid" ] && break
      sleep 0.1
    done
  done
  # shellcheck disable=SC2046
  redis-cli --cluster create $(for port in $PORTS; do printf '127.0.0.1:%s ' "$port"; done) \
    --cluster-replicas 1 --cluster-yes >"$STATE/create.log"
  for _ in $(seq 1 100); do
    # Ready once every slot is served and each master has its replica (failover tests need them).
    if redis-cli -p "$BASE" cluster info | grep -q 'cluster_state:ok' &&
      [ "$(redis-cli -p "$BASE" cluster nodes | grep -c ' slave ')" -eq 3 ]; then
      for port in $PORTS; do printf '127.0.0.1:%s\n' "$port"; done | paste -sd, -
      return 0
    fi
    sleep 0.1
  done
  echo "redis cluster did not become ready; logs in $STATE" >&2
  exit 1
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
