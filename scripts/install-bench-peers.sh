#!/usr/bin/env bash
# Builds the peer benchmarks that live outside the CMake build: the iceoryx2 Rust peer
# (bench/peers/iceoryx2_pingpong -> bench/peers/iceoryx2_pingpong/target/release/baton-peer-iceoryx2,
# and baton-peer-iceoryx2-stream beside it for bench/suite's open-loop scenarios).
# The C++ peers and floors (iceoryx, CycloneDDS, floor-*) are built by CMake; their Debian
# packages come from scripts/install-deps.sh.
# Idempotent: cargo rebuilds only what changed. Without a usable cargo it explains and exits 0
# (the iceoryx2 peer is then simply missing from the benchmark run).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CRATE="$ROOT/bench/peers/iceoryx2_pingpong"
BIN="$CRATE/target/release/baton-peer-iceoryx2"
MIN_RUST="1.89"  # iceoryx2 0.10.0's rust-version

if ! command -v cargo >/dev/null 2>&1; then
  echo "[install-bench-peers] cargo not found: skipping the iceoryx2 peer (needs Rust >= $MIN_RUST)"
  exit 0
fi
have="$(cargo --version | awk '{print $2}')"
if [ "$(printf '%s\n%s\n' "$MIN_RUST" "$have" | sort -V | head -n1)" != "$MIN_RUST" ]; then
  echo "[install-bench-peers] cargo $have is older than $MIN_RUST: skipping the iceoryx2 peer"
  exit 0
fi

echo "[install-bench-peers] building the iceoryx2 peer with cargo $have (first build takes ~1-3 min)"
if ! cargo build --release --locked --manifest-path "$CRATE/Cargo.toml"; then
  echo "[install-bench-peers] error: cargo build of $CRATE failed (crates.io reachable?)" >&2
  exit 1
fi
echo "[install-bench-peers] ok: $BIN"
