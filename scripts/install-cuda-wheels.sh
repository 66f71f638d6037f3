#!/usr/bin/env bash
# Installs NVIDIA's CUDA runtime headers and NVRTC (the run-time CUDA compiler) from PyPI wheels
# into a repo-local virtualenv (.venv), so baton can compile its CUDA kernels to PTX without a
# CUDA toolkit. No GPU is needed for this. The CUDA *driver* (libcuda.so.1) is never installed
# here: it comes with the GPU driver and is loaded at run time when present.
# Idempotent: an existing .venv with both wheels is left alone.
set -euo pipefail
cd "$(dirname "$0")/.."

WHEELS=(nvidia-cuda-runtime-cu12==12.9.79 nvidia-cuda-nvrtc-cu12==12.9.86)  # pinned: the versions tested

if [ ! -x .venv/bin/python ]; then
  echo "[install-cuda-wheels] creating .venv"
  python3 -m venv .venv
fi
if .venv/bin/python -m pip show "${WHEELS[@]%%==*}" >/dev/null 2>&1; then
  echo "[install-cuda-wheels] present: ${WHEELS[*]}"
else
  echo "[install-cuda-wheels] installing: ${WHEELS[*]}"
  .venv/bin/python -m pip install --quiet --disable-pip-version-check "${WHEELS[@]}"
fi
lib=$(ls -d .venv/lib/python3*/site-packages/nvidia/cuda_nvrtc/lib 2>/dev/null | head -n1 || true)
if [ -z "$lib" ]; then
  echo "[install-cuda-wheels] error: NVRTC library directory not found under .venv" >&2
  exit 1
fi
echo "[install-cuda-wheels] NVRTC: $(ls "$lib"/libnvrtc.so* | head -n1)"
