#!/bin/bash
# The first import and index of SRC by two tape binaries taking turns, two
# rounds, each into a fresh workspace $OUT/ws-base and $OUT/ws-new (left
# for the steps that follow); with AGENTSVIEW=1, agentsview's first sync
# of SRC after each round.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=${SRC:-/tmp/cp20/projects}
OUT=${OUT:-/tmp/final31}
BASE=${BASE:-/tmp/b/tape.main}
NEW=${NEW:-/tmp/b/tape.final}
T='%e s %U u %S s %M KB'
for round in 1 2; do
  for b in base new; do
    bin=$BASE; [ $b = new ] && bin=$NEW
    ws=$OUT/ws-$b; rm -rf $ws; mkdir -p $ws; cd $ws
    /usr/bin/time -f "$b import $T" $bin import claude $SRC 2>&1 >/dev/null | tail -1
    /usr/bin/time -f "$b index $T" $bin reindex 2>&1 >/dev/null | tail -1
  done
  if [ "${AGENTSVIEW:-}" = 1 ]; then "$HERE"/agentsview.sh $SRC 2>/dev/null; fi
done
