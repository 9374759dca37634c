#!/bin/bash
SRC=/tmp/cp20/projects; OUT=/tmp/final31
declare -A BIN=([base]=/tmp/b/tape.main [new]=/tmp/b/tape.final2)
T='%e s %U u %S s %M KB'
for round in 1 2; do
  for b in base new; do
    ws=$OUT/ws2-$b; rm -rf $ws; mkdir -p $ws; cd $ws
    /usr/bin/time -f "$b import $T" ${BIN[$b]} import claude $SRC 2>&1 >/dev/null | tail -1
    /usr/bin/time -f "$b index $T" ${BIN[$b]} reindex 2>&1 >/dev/null | tail -1
  done
done
