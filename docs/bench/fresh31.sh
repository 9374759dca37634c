#!/bin/bash
# Words common in old sessions and absent from the newest: copies of the
# two workspaces of final31.sh, each given 300 new tapes of 40 messages
# whose words are none of tape-bench search's queries, then searched.
set -eu
OUT=/tmp/final31
for b in base new; do
  rm -rf $OUT/f-$b; cp -a $OUT/ws-$b $OUT/f-$b
done
gen() { for j in $(seq 40); do echo "{\"role\":\"user\",\"content\":\"fresh$1 alpha$j bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango\"}"; done; }
for b in base new; do
  bin=/tmp/b/tape.main; [ $b = new ] && bin=/tmp/b/tape.final
  cd $OUT/f-$b
  for i in $(seq 300); do gen $i | $bin --no-catchup append --jsonl -t fresh-$i >/dev/null; done
  $bin reindex --full >/dev/null 2>&1 # a copy reads every file again: rebuild
done
/tmp/b/tape-bench.final search -dir $OUT/f-new -tape /tmp/b/tape.final -vs /tmp/b/tape.main -vs-dir $OUT/f-base -runs 7
