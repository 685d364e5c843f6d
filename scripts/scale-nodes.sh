#!/usr/bin/env bash
# Measures 1..N `foresight serve` nodes on one PostgreSQL, each node loaded
# by a `foresight loadtest` generator in its own process (--target), and
# reports the throughput of each node and the CPU seconds PostgreSQL, the
# nodes and the generators used. docs/scaling.md explains the numbers.
#
#   scripts/scale-nodes.sh [--bin PATH] [--nodes "1 2 3"] [--duration 20s] [--what "bets settle jobs"]
#
# Needs PostgreSQL's server and client programs (15 or later; the Debian
# package's /usr/lib/postgresql/*/bin, else psql's directory on PATH). PostgreSQL runs with its
# defaults (fsync on), a new database per measurement. As root, PostgreSQL
# runs as the user postgres.
set -euo pipefail

bin=./foresight
nodes_list="1 2 3"
duration=20s
what="bets settle jobs"
while [ $# -gt 0 ]; do
  case $1 in
    --bin) bin=$2; shift 2 ;;
    --nodes) nodes_list=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --what) what=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
bin=$(realpath "$bin")

pgbin=$(dirname "$(ls /usr/lib/postgresql/*/bin/psql 2>/dev/null | tail -1)")
[ -x "$pgbin/psql" ] || pgbin=$(dirname "$(command -v psql)")
work=$(mktemp -d /tmp/foresight-scale-XXXX)
chmod 755 "$work"
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" -eq 0 ] && chown postgres "$work"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  as_pg "$pgbin/pg_ctl" -D "$work/pg" -m fast stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
port=$(free_port)
as_pg "$pgbin/initdb" -D "$work/pg" -U postgres -A trust -E UTF8 >/dev/null
as_pg "$pgbin/pg_ctl" -D "$work/pg" -o "-p $port -k $work -c listen_addresses=127.0.0.1 -c max_connections=400" \
  -l "$work/pg.log" -w start >/dev/null

# cpu_of PID...: user and system clock ticks the processes and their
# children already waited for used so far (PostgreSQL's ended backends are
# in the postmaster's children's time).
cpu_of() {
  local total=0 p
  for p in "$@"; do
    [ -r "/proc/$p/stat" ] || continue
    total=$(awk -v t="$total" '{ sub(/^.*\) /, ""); print t + $12 + $13 + $14 + $15 }' "/proc/$p/stat")
  done
  echo "${total%.*}"
}
# pg_pids: this cluster's postmaster and its children (not another
# cluster's, such as a test's, running beside it).
pg_pids() { local m; m=$(head -1 "$work/pg/postmaster.pid"); echo "$m $(pgrep -d ' ' -P "$m" || true)"; }
ticks=$(getconf CLK_TCK)

token=scale-nodes-admin-token-0123456789abcdef
ulimit -n 65536 2>/dev/null || true

measure() { # measure KIND NODES
  local kind=$1 n=$2 db=scale_${1}_${2}_$RANDOM
  rm -f "$work"/gen*.txt
  as_pg "$pgbin/psql" -h 127.0.0.1 -p $port -U postgres -qc "create database $db" >/dev/null
  local url="postgres://postgres@127.0.0.1:$port/$db?sslmode=disable"
  "$bin" migrate --database-url "$url" >/dev/null
  local node_pids=() i
  local node_ports=()
  for i in $(seq 1 "$n"); do node_ports+=("$(free_port)"); done
  for i in $(seq 1 "$n"); do
    FORESIGHT_ADMIN_TOKEN=$token FORESIGHT_DEV_ALLOW_INSECURE=true FORESIGHT_TICKETS_RATE_LIMIT=0 \
      FORESIGHT_LAUNCHER_RATE_LIMIT=0 FORESIGHT_BET_RATE_LIMIT=0 FORESIGHT_AUTH_FAILURES_PER_MINUTE=0 \
      "$bin" serve --addr 127.0.0.1:${node_ports[i-1]} --database-url "$url" >"$work/node$i.log" 2>&1 &
    node_pids+=($!); pids+=($!)
  done
  for i in $(seq 1 "$n"); do
    for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:${node_ports[i-1]}/healthz" >/dev/null 2>&1 && break; sleep 0.2; done
  done
  local pg0 nodes0 gen_pids=()
  pg0=$(cpu_of $(pg_pids)); nodes0=$(cpu_of "${node_pids[@]}")
  local start=$SECONDS
  for i in $(seq 1 "$n"); do
    case $kind in
      bets) args=(loadtest bets --backlog=false --duration "$duration") ;;
      settle) args=(loadtest bets --backlog=false --settle --duration "$duration") ;;
      jobs) args=(loadtest --clients 200 --duration "$duration") ;;
    esac
    "$bin" "${args[@]}" --target "http://127.0.0.1:${node_ports[i-1]}" --admin-token $token >"$work/gen$i.txt" 2>&1 &
    gen_pids+=($!)
  done
  local p
  for p in "${gen_pids[@]}"; do wait "$p" || { echo "generator failed:"; cat "$work"/gen*.txt; exit 1; }; done
  local elapsed=$((SECONDS - start))
  local pg1 nodes1
  pg1=$(cpu_of $(pg_pids)); nodes1=$(cpu_of "${node_pids[@]}")
  echo "== $kind, $n node(s), $duration per phase, wall ${elapsed}s; CPU seconds: PostgreSQL $(( (pg1 - pg0) / ticks )), nodes $(( (nodes1 - nodes0) / ticks ))"
  for i in $(seq 1 "$n"); do
    grep -E 'bets, max |CONFIRMED|deposits delivered|jobs, max|handler, max' "$work/gen$i.txt" | sed "s/^/node $i: /"
  done
  # the sum over the nodes of each measure's rate (the number before "/s")
  cat "$work"/gen*.txt | awk '/^placement to CONFIRMED|^resolve to every deposit|^POST \/tickets\/v1\/jobs, max/ {
      name = $0; sub(/  +.*/, "", name); for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.]+\/s,?$/) { v = $i; sub(/\/s,?/, "", v); sum[name] += v }
    } END { for (k in sum) printf "all nodes: %-40s %.0f/s\n", k, sum[k] }'
  for p in "${node_pids[@]}"; do kill "$p"; wait "$p" 2>/dev/null || true; done
  as_pg "$pgbin/psql" -h 127.0.0.1 -p $port -U postgres -qc "drop database $db" >/dev/null
}

echo "# $(date -u +%FT%TZ) $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $("$pgbin/postgres" --version)"
for kind in $what; do
  for n in $nodes_list; do
    measure "$kind" "$n"
  done
done
