#!/usr/bin/env bash
# Creates the project's Python venv at <repo>/.venv (if missing) and installs the pinned
# development requirements (python/requirements-dev.txt) into it. Idempotent: a stamp file holding
# the requirements' hash skips pip when nothing changed. Also installs Debian's graphviz (for
# `baton graph --png`) when run as root and it is missing.
#   scripts/install-python.sh            # venv + requirements
#   scripts/install-python.sh --package  # also `pip install .` (the baton package + CLI)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
REQ="$ROOT/python/requirements-dev.txt"
PY="${PYTHON:-python3}"

if ! command -v dot >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ]; then
    echo "[install-python] installing graphviz (Debian)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz >/dev/null ||
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz >/dev/null; } ||
      echo "[install-python] note: graphviz not installed; 'baton graph' writes DOT only"
  else
    echo "[install-python] note: graphviz missing (sudo apt-get install graphviz for PNGs)"
  fi
fi

if [ ! -x "$VENV/bin/python" ]; then
  echo "[install-python] creating $VENV"
  "$PY" -m venv "$VENV"
fi
stamp="$VENV/.requirements.sha256"
want="$(sha256sum "$REQ" | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null || true)" != "$want" ]; then
  echo "[install-python] installing $(grep -cv '^#' "$REQ") pinned packages"
  "$VENV/bin/pip" install -q --disable-pip-version-check --upgrade pip
  "$VENV/bin/pip" install -q --disable-pip-version-check -r "$REQ"
  echo "$want" > "$stamp"
fi

if [ "${1:-}" = "--package" ]; then
  echo "[install-python] pip install $ROOT (builds the core and the extension)"
  CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}" \
    "$VENV/bin/pip" install -q --disable-pip-version-check --no-build-isolation "$ROOT"
fi
echo "[install-python] ok: $VENV"
