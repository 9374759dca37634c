#!/usr/bin/env bash
# agentsview.sh PROJECTS_DIR
# One first sync+index (SQLite + FTS5) of a Claude Code projects dir by
# agentsview, into a fresh data folder; prints one line:
#   agentsview sync: <wall> s <user> u <sys> s <maxrss> KB <sessions> sessions
#
# agentsview has no sync-only subcommand: `agentsview serve` runs the initial
# sync (SyncAll) synchronously, then starts the fsnotify watcher and the HTTP
# server and prints "listening at". We time the whole process from start until
# that line appears, then SIGTERM it. So <wall> = first sync + index + watcher
# setup + server start (the last two are milliseconds) + <= POLL s of polling.
#
# Env: AGENTSVIEW_BIN (default /tmp/peers/bin/agentsview), POLL (0.02),
#      AV_KEEP=1 keeps the data folder (prints its path on stderr).
set -euo pipefail
PROJ=${1:?usage: agentsview.sh PROJECTS_DIR}
PROJ=$(cd "$PROJ" && pwd)
BIN=${AGENTSVIEW_BIN:-/tmp/peers/bin/agentsview}
POLL=${POLL:-0.02}
[ -x "$BIN" ] || { echo "no agentsview binary at $BIN" >&2; exit 1; }

DATA=/tmp/peers/data-$$
rm -rf "$DATA"; mkdir -p "$DATA/home" "$DATA/av"
cleanup() {
  if [ -n "${CPID:-}" ]; then kill "$CPID" 2>/dev/null || true; fi
  if [ "${AV_KEEP:-}" != 1 ]; then rm -rf "$DATA"; else echo "kept $DATA" >&2; fi
}
trap cleanup EXIT

# Isolation: HOME points at an empty folder, so no other agent's default dir
# (~/.codex, ~/.gemini, ...) and no ~/.agentsview is found; only Claude is
# pointed at PROJECTS_DIR; database + config + debug.log go to $DATA/av.
PORT=$(( 20000 + $$ % 20000 ))
OUT=$DATA/stdout TIMEF=$DATA/time
HOME=$DATA/home AGENT_VIEWER_DATA_DIR=$DATA/av CLAUDE_PROJECTS_DIR=$PROJ \
  /usr/bin/time -o "$TIMEF" -f '%e %U %S %M' \
  "$BIN" serve -no-browser -host 127.0.0.1 -port "$PORT" >"$OUT" 2>"$DATA/stderr" &
TPID=$!
CPID=
while :; do
  [ -z "$CPID" ] && CPID=$(pgrep -P "$TPID" || true)
  if grep -q 'listening at' "$OUT" 2>/dev/null; then break; fi
  if ! kill -0 "$TPID" 2>/dev/null; then
    echo "agentsview exited before listening:" >&2; cat "$OUT" "$DATA/stderr" >&2; exit 1
  fi
  sleep "$POLL"
done
kill -TERM "$CPID"
wait "$TPID" 2>/dev/null || true
CPID=
read -r WALL USR SYS RSS < <(tail -n 1 "$TIMEF")

DB=$DATA/av/sessions.db
SESS=$(sqlite3 "file:$DB?mode=ro" 'select count(*) from sessions' 2>/dev/null || true)
if [ -z "$SESS" ]; then
  SESS=$(tr '\r' '\n' <"$OUT" | sed -n 's/^Sync complete: \([0-9]*\) sessions.*/\1/p' | tail -1)
fi
# Diagnostics on stderr: agentsview's own summary and DB figures.
{
  tr '\r' '\n' <"$OUT" | grep -E 'Sync complete|Watching' | sed 's/^/  # /'
  MSGS=$(sqlite3 "file:$DB?mode=ro" 'select count(*) from messages' 2>/dev/null || echo '?')
  DBKB=$(du -sk "$DATA/av" | cut -f1)
  echo "  # messages=$MSGS data_dir=${DBKB}KB"
  [ -s "$DATA/stderr" ] && sed 's/^/  # stderr: /' "$DATA/stderr" | head -5
} >&2 || true
echo "agentsview sync: $WALL s $USR u $SYS s $RSS KB $SESS sessions"
