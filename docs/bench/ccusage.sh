#!/usr/bin/env bash
# ccusage.sh PROJECTS_DIR
# Times one `ccusage <report> --json --offline` (ccusage 20.0.24, installed by
# npm under /tmp/peers/ccusage) over a Claude Code projects dir; prints one line:
#   ccusage daily: <wall> s <user> u <sys> s <maxrss> KB <rows> days
# ccusage keeps no index: every run re-reads and re-parses all JSONL files, so
# this is its per-query cost (it has no first-import step to separate).
#
# The projects dir is given by CLAUDE_CONFIG_DIR (ccusage accepts a Claude config
# dir containing projects/, or the projects/ dir itself; comma-separated list
# allowed). HOME and XDG_* point at an empty temp folder so no other agent's
# data (~/.codex, ...), no ~/.config/ccusage config and no pricing cache is seen.
# --offline: use the pricing table embedded in the binary (no LiteLLM fetch;
# this machine has no network beyond package registries anyway).
#
# Env: CC_REPORT (daily; or weekly/monthly/session; the count is that report's rows),
#      CCUSAGE_NATIVE=1 runs the static native binary directly instead of the
#      npm `ccusage` bin (a node launcher that spawns the same binary, ~0.1 s and
#      node's RSS more; /usr/bin/time's maxrss is then the larger of node's and
#      the binary's), CCUSAGE_DIR (/tmp/peers/ccusage).
set -euo pipefail
PROJ=${1:?usage: ccusage.sh PROJECTS_DIR}
PROJ=$(cd "$PROJ" && pwd)
CCD=${CCUSAGE_DIR:-/tmp/peers/ccusage}
REPORT=${CC_REPORT:-daily}
if [ "${CCUSAGE_NATIVE:-}" = 1 ]; then
  CMD=("$CCD/node_modules/@ccusage/ccusage-linux-x64/bin/ccusage")
else
  CMD=("$CCD/node_modules/.bin/ccusage")
fi
[ -x "${CMD[0]}" ] || { echo "no ccusage at ${CMD[0]} (npm install ccusage@20.0.24 in $CCD)" >&2; exit 1; }

TMP=/tmp/peers/ccdata-$$
rm -rf "$TMP"; mkdir -p "$TMP/home"
trap 'rm -rf "$TMP"' EXIT
H=$TMP/home
env HOME="$H" XDG_CACHE_HOME="$H/.cache" XDG_CONFIG_HOME="$H/.config" XDG_DATA_HOME="$H/.local/share" \
    CLAUDE_CONFIG_DIR="$PROJ" NO_COLOR=1 \
  /usr/bin/time -o "$TMP/time" -f '%e %U %S %M' \
  "${CMD[@]}" "$REPORT" --json --offline >"$TMP/out.json" 2>"$TMP/err" || {
    echo "ccusage failed:" >&2; cat "$TMP/err" "$TMP/time" >&2; exit 1; }
read -r WALL USR SYS RSS < <(tail -n 1 "$TMP/time")
ROWS=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d[sys.argv[2]]))' \
        "$TMP/out.json" "$REPORT" 2>/dev/null || echo '?')
TOK=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"]["totalTokens"])' \
        "$TMP/out.json" 2>/dev/null || echo '?')
[ -s "$TMP/err" ] && sed 's/^/  # stderr: /' "$TMP/err" | head -5 >&2
echo "  # totalTokens=$TOK" >&2
unit=$REPORT; case $REPORT in daily) unit=days;; weekly) unit=weeks;; monthly) unit=months;; session) unit=sessions;; esac
echo "ccusage $REPORT: $WALL s $USR u $SYS s $RSS KB $ROWS $unit"
