#!/usr/bin/env bash
# check-layers.sh [OBJECTS...] - the layers of src/ (docs/layers.md) include only the layers below them, and, given
# the library's object files, call only below them too. Exit 1 naming each file that reaches up.
set -euo pipefail
cd "$(dirname "$0")/.."
# top first, as docs/layers.md lists them; a folder may use its own layer and the ones after it
order=(compat runtime api coll stream device proxy comm mem omp transport gpu bootstrap core topo)
declare -A rank
for i in "${!order[@]}"; do rank[${order[$i]}]=$((${#order[@]} - i)); done
bad=0
for f in $(git ls-files 'src/*.c' 'src/*.h' 'src/*.S'); do
  own=$(echo "$f" | cut -d/ -f2)
  [ -n "${rank[$own]:-}" ] || { echo "check-layers: $f is in no known layer ($own): add it to docs/layers.md"; bad=1; continue; }
  while read -r inc; do
    l=${inc%%/*}
    [ -n "${rank[$l]:-}" ] || continue
    if [ "${rank[$l]}" -gt "${rank[$own]}" ]; then
      echo "check-layers: $f ($own) includes $inc, a layer above it"
      bad=1
    fi
  done < <(sed -n 's/^#include "\([a-z_]*\/[^"]*\)".*/\1/p' "$f")
done
if [ $# -gt 0 ]; then # objects: every undefined symbol defined in a higher layer is a call up
  declare -A def
  for o in "$@"; do
    l=$(echo "$o" | sed -n 's|.*/src/\([a-z_]*\)/.*|\1|p')
    [ -n "$l" ] || continue
    while read -r s; do def[$s]=$l; done < <(nm --defined-only "$o" | awk '$2 ~ /[TDBRC]/ {print $3}')
  done
  for o in "$@"; do
    l=$(echo "$o" | sed -n 's|.*/src/\([a-z_]*\)/.*|\1|p')
    [ -n "$l" ] || continue
    while read -r s; do
      d=${def[$s]:-}
      if [ -n "$d" ] && [ "${rank[$d]}" -gt "${rank[$l]}" ]; then
        echo "check-layers: $(echo "$o" | sed 's|.*/src/|src/|; s|\.o$||') ($l) calls $s of $d, a layer above it"
        bad=1
      fi
    done < <(nm -u "$o" | awk '{print $2}')
  done
fi
[ $bad = 0 ] && echo "check-layers: every layer uses only itself and the layers below"
exit $bad
