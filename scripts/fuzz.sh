#!/usr/bin/env bash
# fuzz.sh [SECONDS] - builds the configuration parsers' fuzz targets (tests/fuzz) with clang's libFuzzer, ASan and
# UBSan, and fuzzes each for SECONDS (default 5) from its committed seeds. Exit status non-zero on a crash, a sanitizer
# report or a disagreement with the reference model; the input that did it is left in build/fuzz/. New inputs found
# stay in build/fuzz/corpus-*, not in the seeds: commit one by hand when it covers something the seeds miss.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-5}
cc=$(command -v clang || command -v clang-14 || true)
if [ -z "$cc" ]; then
  echo "fuzz.sh: no clang (Debian: clang, libclang-rt-14-dev); skipped"
  exit 0
fi
out=build/fuzz
mkdir -p "$out"
for t in size partition env; do
  "$cc" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -D_GNU_SOURCE -Isrc/core \
    tests/fuzz/fuzz_$t.c src/core/env.c -o "$out/fuzz_$t"
  mkdir -p "$out/corpus-$t"
  (cd "$out" && ./fuzz_$t -max_total_time="$secs" -max_len=512 -print_final_stats=0 "corpus-$t" \
    ../../tests/fuzz/seeds/$t 2>&1 | tail -2)
  echo "fuzz.sh: $t: $(ls "$out/corpus-$t" | wc -l) inputs in the corpus, no failure in $secs s"
done
