#!/usr/bin/env bash
# The Python latency comparison (baton vs iceoryx2 vs rclpy); see run.py.
#   bench/python/run.sh [--quick] [--sizes 64,64K,4M] [--systems baton,iceoryx2,rclpy]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
exec "$ROOT/.venv/bin/python" "$ROOT/bench/python/run.py" "$@"
