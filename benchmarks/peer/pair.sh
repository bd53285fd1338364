#!/usr/bin/env bash
# shellcheck disable=SC2016  # (single-quoted scripts for bash -c expand in that shell)
# Assay paired with Label Studio 1.23.2 on this machine (issue 32): the same PostgreSQL, the same load generator
# (peer-bench's loadgen.py, by path), one side after the other, so their ratio is measured in one run.
#   pair.sh setup              Label Studio + gunicorn and the generator's virtualenv under $PERF, Label Studio's
#                              template database (idempotent)
#   pair.sh prepare [REV]      Assay REV (default HEAD) as a git worktree in $PERF and its template database
#   pair.sh run [REV] ROUND N  one pair at N clients: Label Studio, then Assay REV, $DURATION s each (60), each
#                              on a fresh copy of its template and freshly started servers; JSON in $RUNS
#   pair.sh summarize          the ratio table of every pair in $RUNS (default $PERF/runs)
#   pair.sh stop               stop the servers this script started (pid files in $PERF/logs)
# peer-bench ($PEER) is read-only: its scripts are used as they are, except perf_build.py (copied with Team's import
# fixed). Our fixes: CPU counted by meter.py; each server started in an empty environment (Label Studio's
# DJANGO_SETTINGS_MODULE must not reach Assay); pid files where the scripts write them; enough items per client;
# Assay started with the web server it ships (start_assay; assay_start.sh still names gunicorn).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
PERF=${PERF:-/root/perf}
DURATION=${DURATION:-60}
RUNS=${RUNS:-$PERF/runs}  # where a run's JSON and log go, and what summarize reads
LS_VERSION=1.23.2 LS_PORT=8411 ASSAY_PORT=8401 LS_TASKS=20000
if [ -z "${PEER:-}" ]; then  # ../shared/peer-bench beside the repository, or beside the main checkout of a worktree
  PEER=$REPO/../shared/peer-bench
  [ -d "$PEER" ] || PEER=$(git -C "$REPO" rev-parse --path-format=absolute --git-common-dir)/../../shared/peer-bench
fi
PEER=$(cd "$PEER" && pwd)
LG=$PERF/lg/venv/bin/python
CLEAN=(env -i HOME="$HOME" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8)
sql() { PGOPTIONS="-c client_min_messages=warning" psql -h 127.0.0.1 -U postgres -d postgres -v ON_ERROR_STOP=1 -Atqc "$1"; }
db_exists() { [ "$(sql "SELECT 1 FROM pg_database WHERE datname = '$1'")" = 1 ]; }
fresh_db() {  # fresh_db NAME TEMPLATE OWNER
  sql "DROP DATABASE IF EXISTS $1 WITH (FORCE)" && sql "CREATE DATABASE $1 TEMPLATE $2 OWNER $3"
}
postmaster() { head -1 "$(sql 'SHOW data_directory')/postmaster.pid"; }
stop_pid() {  # the process group a setsid start made (the server and its workers), TERM then KILL after 20 s
  local pid=$1 i
  kill -TERM -- "-$pid" 2>/dev/null || return 0
  for i in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.5; done
  kill -KILL -- "-$pid" 2>/dev/null || true
}
stop_all() {
  local f pid pids
  for f in "$PERF"/ls/logs/*.pid "$PERF"/logs/assay.pids; do  # (where ls_start.sh and assay_start.sh write them)
    [ -f "$f" ] || continue
    read -r -a pids < "$f"
    for pid in "${pids[@]}"; do stop_pid "$pid"; done
    rm -f "$f"
  done
}
start_ls() {  # prints the pid; MODE runserver (first start: migrations, user, token) or gunicorn (4 sync workers)
  "${CLEAN[@]}" BENCH="$PERF/ls" bash "$PEER/ls_start.sh" pg "$LS_PORT" "$1" 4
}
ls_token() { "${CLEAN[@]}" BENCH="$PERF/ls" bash -c '. "$0" pg >/dev/null && echo "$LS_BENCH_TOKEN"' "$PEER/ls_env.sh"; }
launch() {  # launch DIR LOG COMMAND...: in the background with Assay's settings only, cwd = DIR; setsid in front,
  # so $! is its process group's id, which stop_pid signals
  local dir=$1 log=$2; shift 2
  setsid "${CLEAN[@]}" bash -c 'cd "$1" && . "$2" && shift 2 && exec "$@"' _ "$dir" "$PEER/assay_env.sh" "$@" \
    > "$log" 2>&1 < /dev/null &
}
start_assay() {  # start_assay DIR PORT: prints "WEB_PID WORKER_PID" once /login/ answers
  # peer-bench's assay_start.sh, with the web server docker-compose.yml runs (config/serve.py since issue 32's
  # switch from gunicorn; a checkout from before it still gets gunicorn as that script starts it, which needs
  # `pip install gunicorn` in the repository's .venv: it is no longer a dependency)
  local dir=$1 port=$2 web i
  web=(.venv/bin/python -m config.serve --bind "127.0.0.1:$port")
  [ -f "$dir/config/serve.py" ] || web=(.venv/bin/python -m gunicorn config.wsgi:application -c config/gunicorn.conf.py
    -b "127.0.0.1:$port")
  mkdir -p "$PERF/logs"
  launch "$dir" "$PERF/logs/assay-web.log" "${web[@]}"
  local g=$!
  launch "$dir" "$PERF/logs/assay-celery.log" .venv/bin/python -m celery -A config worker --loglevel=INFO -Q perf \
    -n perf@%h
  local c=$!
  for i in $(seq 1 120); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/login/")" = 200 ] && break
    sleep 1
  done
  echo "$g $c" > "$PERF/logs/assay.pids"
  echo "$g $c"
}
in_assay_env() {  # in_assay_env DIR VAR=value... command...: Assay's settings only, cwd = its checkout
  local dir=$1; shift
  (cd "$dir" && "${CLEAN[@]}" bash -c '. "$0"; exec env "$@"' "$PEER/assay_env.sh" "$@")
}

setup() {
  mkdir -p "$PERF/logs" "$RUNS" "$PERF/ls"
  if ! "$PERF/ls/venv/bin/pip" show label-studio 2>/dev/null | grep -qx "Version: $LS_VERSION"; then
    python3 -m venv "$PERF/ls/venv"
    nice "$PERF/ls/venv/bin/pip" install -q "label-studio==$LS_VERSION" gunicorn
  fi
  if ! "$LG" -c 'import aiohttp, psycopg' 2>/dev/null; then
    python3 -m venv "$PERF/lg/venv"
    nice "$PERF/lg/venv/bin/pip" install -q aiohttp 'psycopg[binary]'
  fi
  # perf_build.py imports Team from pooling.models; it lives in accounts.models
  sed 's/^from pooling.models import Evaluation, PoolItem, Run, RunEntry, Team, Topic/from accounts.models import Team\nfrom pooling.models import Evaluation, PoolItem, Run, RunEntry, Topic/' \
    "$PEER/perf_build.py" > "$PERF/perf_build.py"
  grep -q '^from accounts.models import Team' "$PERF/perf_build.py" || { echo "perf_build.py: patch did not apply" >&2; exit 1; }
  ln -sfn "$PEER/assay_env.sh" "$PERF/assay_env.sh"  # (assay_start.sh sources it from $PERF)
  if db_exists perf_ls_tpl && [ -s "$PERF/ls-ids.json" ]; then return; fi
  # Label Studio's template: migrated, its user, token and organization, one project of $LS_TASKS tasks
  sql "DO \$\$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'perf_ls') THEN
       CREATE ROLE perf_ls LOGIN PASSWORD 'perf_ls'; END IF; END\$\$"
  sql "DROP DATABASE IF EXISTS perf_ls" && sql "CREATE DATABASE perf_ls OWNER perf_ls"
  local pid
  pid=$(start_ls runserver) && stop_all
  pid=$(start_ls gunicorn)
  "$PERF/ls/venv/bin/python" "$PEER/ls_setup_project.py" --base-url "http://127.0.0.1:$LS_PORT" --token "$(ls_token)" \
    --tasks "$LS_TASKS" --out "$PERF/ls-ids.json"
  stop_all
  sql "ALTER DATABASE perf_ls RENAME TO perf_ls_tpl"
}

resolve() { git -C "$REPO" rev-parse --verify "${1:-HEAD}^{commit}"; }

prepare() {  # prepare SHA: checkout and template database perf_assay_tpl_<short>, each made once
  local sha=$1 short=${1:0:10} dir=$PERF/assay-${1:0:10} tpl=perf_assay_tpl_${1:0:10} i names=()
  [ -d "$dir" ] || git -C "$REPO" worktree add --detach "$dir" "$sha" >/dev/null
  [ -e "$dir/.venv" ] || ln -s "$(readlink -f "$REPO/.venv")" "$dir/.venv"
  # DEBUG=0 serves the hashed static files (whitenoise's manifest), as the Dockerfile's collectstatic makes them
  [ -s "$dir/staticfiles/staticfiles.json" ] || in_assay_env "$dir" .venv/bin/python manage.py collectstatic --noinput -v 0
  if db_exists "$tpl" && [ -s "$PERF/ev-$short-c1.json" ]; then return; fi
  echo "$(date +%T) building $tpl (migrations, evaluations perf-c50 and perf-c1)"
  sql "DROP DATABASE IF EXISTS $tpl" && sql "CREATE DATABASE $tpl"
  local url=postgresql://postgres@127.0.0.1:5432/$tpl
  in_assay_env "$dir" DATABASE_URL="$url" .venv/bin/python manage.py migrate -v 0
  for i in $(seq -w 1 50); do names+=("perf-a$i"); done
  # 2 series a client (~2,230 items each: 114,000 for N=50) and 54 for the one of N=1 (~61,000): none runs out
  # in 60 s below ~1,850 saves/s (N=50) or ~1,000 (N=1); a run's line says if some did
  in_assay_env "$dir" DATABASE_URL="$url" .venv/bin/python "$PERF/perf_build.py" --slug perf-c50 \
    --assessors "${names[@]}" --series 100 --out "$PERF/ev-$short-c50.json"
  in_assay_env "$dir" DATABASE_URL="$url" .venv/bin/python "$PERF/perf_build.py" --slug perf-c1 \
    --assessors perf-solo --series 54 --out "$PERF/ev-$short-c1.json"
}

run() {  # run SHA ROUND N
  local sha=$1 round=$2 n=$3 short=${1:0:10} pm ls_pid ag ac tag common
  prepare "$sha"
  stop_all
  trap stop_all EXIT
  pm=$(postmaster)
  fresh_db perf_ls perf_ls_tpl perf_ls
  fresh_db perf_assay "perf_assay_tpl_$short" postgres
  sql CHECKPOINT  # (the copies' writes flushed now, not by a checkpoint in the middle of a measurement)
  common=(--peer "$PEER" --round "$round" --rev "$short" -c "$n" -d "$DURATION" --settle 2 --db-pid "$pm")
  # A: Label Studio (3 s of warm-up at 8 clients: every worker has loaded what a save needs)
  ls_pid=$(start_ls gunicorn)
  local ls=(--target labelstudio --base-url "http://127.0.0.1:$LS_PORT" --token "$(ls_token)"
    --ids-file "$PERF/ls-ids.json" --db-url postgresql://perf_ls:perf_ls@127.0.0.1:5432/perf_ls --server-pid "$ls_pid")
  "$LG" "$PEER/loadgen.py" "${ls[@]}" -c 8 -d 3 --settle 0 > /dev/null
  tag=ls-r$round-c$n-$short
  "$LG" "$HERE/peer.py" load "${common[@]}" --side ls "${ls[@]}" --label "$tag" --out "$RUNS/$tag.json" \
    2>&1 | tee "$RUNS/$tag.log"
  stop_all
  # B: Assay as docker-compose ships it (the web server + the Celery worker, nice 10)
  ln -sfn "assay-$short" "$PERF/assay"
  read -r ag ac < <(start_assay "$PERF/assay" "$ASSAY_PORT")
  curl -sf -o /dev/null "http://127.0.0.1:$ASSAY_PORT/login/" || { echo "Assay did not start: $PERF/logs" >&2; exit 1; }
  local assay=(--target assay --base-url "http://127.0.0.1:$ASSAY_PORT" --session-cache "$PERF/logs/sessions.json"
    --db-url postgresql://postgres@127.0.0.1:5432/perf_assay --server-pid "$ag" --worker-pid "$ac")
  rm -f "$PERF/logs/sessions.json"
  "$LG" "$PEER/loadgen.py" "${assay[@]}" --ids-file "$PERF/ev-$short-c50.json" -c 8 -d 3 --settle 2 \
    > /dev/null 2>&1
  tag=assay-r$round-c$n-$short
  local ev=$PERF/ev-$short-c50.json
  [ "$n" -gt 1 ] || ev=$PERF/ev-$short-c1.json
  "$LG" "$HERE/peer.py" load "${common[@]}" --side assay "${assay[@]}" --ids-file "$ev" --freshness \
    --label "$tag" --out "$RUNS/$tag.json" 2>&1 | tee "$RUNS/$tag.log"
  stop_all
}

case ${1:-} in
  setup) setup ;;
  prepare) setup; prepare "$(resolve "${2:-}")" ;;
  run)
    shift
    if [ $# -eq 3 ]; then rev=$1; shift; else rev=HEAD; fi
    [ $# -eq 2 ] || { sed -n '3,11p' "$0"; exit 2; }
    setup; run "$(resolve "$rev")" "$1" "$2" ;;
  summarize) "$LG" "$HERE/peer.py" summarize "$RUNS" ;;
  stop) stop_all ;;
  *) sed -n '3,14p' "$0"; exit 2 ;;
esac
