"""The `baton` command as a new user meets it: a fresh shell (no PYTHONPATH, a bare PATH) that
activates the project's venv finds `baton` on PATH, and it runs the build's package
(scripts/install-baton-command.sh, run by `make build`)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / ".venv"


def _fresh_shell(script: str) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/root")}
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-c", script],
        cwd="/",
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture(scope="module")
def installed():
    if not (VENV / "bin" / "baton").exists():
        pytest.fail("no .venv/bin/baton: `make build` runs scripts/install-baton-command.sh")


def test_baton_is_on_path_after_activating_the_venv(installed):
    r = _fresh_shell(f". {VENV}/bin/activate && command -v baton && baton --version")
    assert r.returncode == 0, r.stderr
    path, version = r.stdout.splitlines()[:2]
    assert path == str(VENV / "bin" / "baton")
    assert version.startswith("baton ")


def test_baton_runs_a_subcommand_with_the_built_extension(installed):
    r = _fresh_shell(f". {VENV}/bin/activate && BATON_NAMESPACE=cmd-{os.getpid()} baton shm list")
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
