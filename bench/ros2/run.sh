#!/usr/bin/env bash
# rclpy on rmw_baton_cpp vs rclpy on rmw_fastrtps_cpp, ping-pong one-way latency, same run.
#   bench/ros2/run.sh [--quick] [--sizes 64,64K,4M] [--samples N]
# Writes out/bench/ros2_rclpy.json (JSON lines) and out/bench/ros2_rclpy_table.md; see run.py.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
exec python3 "$ROOT/bench/ros2/run.py" "$@"
