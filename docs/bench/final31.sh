#!/bin/bash
# Issue 31's figures, on 5 copies of generated transcripts (/tmp/cp20/projects),
# base (5284c90) and new binaries taking turns, agentsview beside.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=/tmp/cp20/projects
OUT=/tmp/final31
mkdir -p $OUT
declare -A BIN=([base]=/tmp/b/tape.main [new]=/tmp/b/tape.final)
T='%e s %U u %S s %M KB'
echo "== cat"
for i in 1 2 3; do /usr/bin/time -f "cat $T" sh -c "find $SRC -type f -name '*.jsonl' -print0 | xargs -0 cat | wc -c" 2>&1 | tr '\n' ' '; echo; done
echo "== first import + index"
SRC=$SRC OUT=$OUT BASE=${BIN[base]} NEW=${BIN[new]} AGENTSVIEW=1 "$HERE"/final31-import.sh
echo "== import again, nothing new"
for i in $(seq 15); do for b in base new; do cd $OUT/ws-$b; /usr/bin/time -f "$b reimport $T" ${BIN[$b]} import claude $SRC 2>&1 >/dev/null | tail -1; done; done
echo "== tapes --limit 0 --json"
for i in $(seq 7); do for b in base new; do cd $OUT/ws-$b; /usr/bin/time -f "$b tapes $T" ${BIN[$b]} tapes --limit 0 --json 2>&1 >/dev/null | tail -1; done; done
for i in $(seq 7); do for b in base new; do d=/tmp/list31/ws-b; [ $b = new ] && d=/tmp/list31/ws-a; cd $d; /usr/bin/time -f "$b tapes10k $T" ${BIN[$b]} tapes --limit 0 --json 2>&1 >/dev/null | tail -1; done; done
echo "== search"
/tmp/b/tape-bench.final search -dir $OUT/ws-new -tape ${BIN[new]} -vs ${BIN[base]} -vs-dir $OUT/ws-base -runs 7
echo done
