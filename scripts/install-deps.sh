#!/usr/bin/env bash
# Installs what baton needs to build, test and benchmark on Debian 12 (run as root).
# Idempotent: packages already present are skipped; a marker avoids repeated apt updates.
set -euo pipefail

APT_PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  libgtest-dev libgmock-dev libbenchmark-dev
  clang-14 clang-format libclang-rt-14-dev
  iceoryx libiceoryx-posh-dev libiceoryx-hoofs-dev libiceoryx-binding-c-dev
  cyclonedds-dev cyclonedds-tools
  python3 python3-venv
  iproute2 util-linux  # ip netns, nsenter, unshare: tests/ros2/two_host_wire_test.cpp
)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "[install-deps] installing: ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "[install-deps] error: missing Debian packages and not root; run: sudo $0" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}"
fi

# Rust toolchain is only needed for the iceoryx2 peer benchmark; report, don't fail.
if ! command -v cargo >/dev/null 2>&1; then
  echo "[install-deps] note: cargo not found; the iceoryx2 peer benchmark will be reported as failed"
fi

# UDP receive buffers for large DDS messages (scripts/tune-net.sh; only raises, needs root).
scripts/tune-net.sh
