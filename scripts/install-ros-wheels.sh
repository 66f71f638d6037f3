#!/usr/bin/env bash
# Creates <repo>/.venv-ros (if missing) with real ROS 2 (Kilted) from PyPI's ros-* wheels: rclpy on
# rmw_fastrtps_cpp, std_msgs, sensor_msgs, geometry_msgs, plus numpy. Kept apart from .venv so the project venv stays small
# (see shared/ROS2-WHEELS.md). Idempotent: a stamp skips pip when the pins did not change.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv-ros"
PY="${PYTHON:-python3}"
PINS=(ros-rclpy==9.1.2 ros-rmw-fastrtps-cpp==9.3.3 ros-std-msgs==5.5.1 ros-sensor-msgs==5.5.1
  ros-geometry-msgs==5.5.1 numpy==2.4.6)

if [ ! -x "$VENV/bin/python" ]; then
  echo "[install-ros-wheels] creating $VENV"
  "$PY" -m venv "$VENV"
fi
stamp="$VENV/.pins"
if [ "$(cat "$stamp" 2>/dev/null || true)" != "${PINS[*]}" ]; then
  echo "[install-ros-wheels] installing ${PINS[*]}"
  "$VENV/bin/pip" install -q --disable-pip-version-check "${PINS[@]}"
  echo "${PINS[*]}" > "$stamp"
fi
echo "[install-ros-wheels] ok: $VENV"
