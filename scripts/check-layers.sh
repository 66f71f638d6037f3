#!/usr/bin/env bash
# Rejects upward dependencies between layers (STYLE.md §1): a layer may include only its own
# headers and those of layers below it. Order: common < shm < memory < topic < graph < api < ros2
# < ros1 (ros1 reuses the .msg parser and the dynamic Value of ros2).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
order=(common shm memory topic graph api ros2 ros1)
rank() { local i; for i in "${!order[@]}"; do [ "${order[$i]}" = "$1" ] && echo "$i" && return; done; echo -1; }
bad=0
for layer in "${order[@]}"; do
  r=$(rank "$layer")
  for f in $(find "include/baton/$layer" "src/$layer" -name '*.[ch]pp' 2>/dev/null); do
    while read -r dep; do
      d=$(rank "$dep")
      if [ "$d" -gt "$r" ]; then
        echo "layering: $f ($layer) includes baton/$dep (a higher layer)"
        bad=1
      fi
    done < <(grep -oE '#include "baton/[a-z0-9_]+/' "$f" | sed -E 's|#include "baton/([a-z0-9_]+)/|\1|' | sort -u)
  done
done
[ "$bad" -eq 0 ] && echo "layering: ok (${order[*]})"
exit "$bad"
