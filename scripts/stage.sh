#!/usr/bin/env bash
# Runs one stage of `make test` / `make demo` and prints its wall time, so slow stages show in CI
# logs:  scripts/stage.sh NAME COMMAND [ARGS...]   ->  "== stage NAME: 123 s (ok|FAILED rc)"
set -uo pipefail
name=$1
shift
start=$(date +%s)
"$@"
rc=$?
secs=$(($(date +%s) - start))
if [ $rc -eq 0 ]; then echo "== stage $name: $secs s (ok)"; else echo "== stage $name: $secs s (FAILED $rc)"; fi
exit $rc
