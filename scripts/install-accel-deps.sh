#!/usr/bin/env bash
# Installs what baton's accelerator domains need on Debian 12 (run as root): the OpenCL ICD
# loader and headers, PoCL (an OpenCL implementation on the CPU, so OpenCL code really runs here)
# and clinfo. Idempotent: packages already present are skipped; apt is updated at most once.
# CUDA needs nothing from apt: its driver is loaded at run time and NVRTC comes from a pip wheel
# (scripts/install-cuda-wheels.sh).
set -euo pipefail

APT_PACKAGES=(ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "[install-accel-deps] all present: ${APT_PACKAGES[*]}"
  exit 0
fi
echo "[install-accel-deps] installing: ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "[install-accel-deps] error: missing Debian packages and not root; run: sudo $0" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
