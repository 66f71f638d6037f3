#!/usr/bin/env bash
# Raises the kernel's UDP receive buffers for large ROS 2 messages over DDS (4K images, point
# clouds), as ROS 2's DDS tuning guide advises: what and why in python/baton/cli/net_limits.py,
# checked by `baton doctor`. Only raises, never lowers; persists in /etc/sysctl.d. Needs root:
# otherwise (or where /proc/sys is read-only, e.g. some containers) it says so and goes on.
set -euo pipefail
cd "$(dirname "$0")/.."
CONF=/etc/sysctl.d/60-baton-dds.conf
wanted=$(python3 python/baton/cli/net_limits.py --sysctl-conf)
low=()
while read -r name _ value; do
  [[ $name == \#* || -z $name ]] && continue
  current=$(sysctl -n "$name" 2>/dev/null || echo 0)
  if (( current < value )); then low+=("$name=$value"); fi
done <<<"$wanted"
[ ${#low[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "[tune-net] note: ${low[*]} wanted for large DDS messages; as root: sysctl -w ${low[*]}"
  exit 0
fi
if sysctl -q -w "${low[@]}" >/dev/null 2>&1; then
  echo "$wanted" >"$CONF"
  echo "[tune-net] raised ${low[*]} (kept in $CONF)"
else
  echo "[tune-net] note: could not set ${low[*]} (read-only /proc/sys?); large DDS messages to" \
    "Fast DDS peers on this host will be lost; see baton doctor"
fi
