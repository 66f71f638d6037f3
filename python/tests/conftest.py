"""Test setup: find the baton package (installed, or the CMake build's build/python), give every
test its own BATON_NAMESPACE, and helpers to run the CLI and peer processes as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HELPERS = Path(__file__).resolve().parent / "helpers"


def _package_path() -> str | None:
    """The directory to put on PYTHONPATH, or None if `baton` is installed."""
    override = os.environ.get("BATON_PYTHONPATH")
    if override:
        return override
    build = Path(os.environ.get("BATON_BUILD_DIR", ROOT / "build")) / "python"
    if (build / "baton").is_dir() and list((build / "baton").glob("_baton*.so")):
        return str(build)
    return None


_PKG = _package_path()
if _PKG:
    sys.path.insert(0, _PKG)
    os.environ["PYTHONPATH"] = _PKG + os.pathsep + os.environ.get("PYTHONPATH", "")


@pytest.fixture
def ns(monkeypatch: pytest.MonkeyPatch) -> str:
    """A fresh BATON_NAMESPACE for this test (and every process it starts)."""
    name = f"pytest-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv("BATON_NAMESPACE", name)
    yield name
    # Remove whatever the test left: its peer processes are gone by now, and nothing else uses
    # this namespace, so even segments this process still maps can be unlinked (mappings stay).
    import gc

    import baton

    gc.collect()
    baton._baton.clean_segments(False, True, False)
    prefix = baton._baton.segment_prefix().lstrip("/")
    for leftover in Path("/dev/shm").glob(prefix + "*"):
        leftover.unlink(missing_ok=True)


@pytest.fixture
def ctx(ns: str):
    import baton

    c = baton.Context.create(janitor_period=0.0)
    yield c
    c.shutdown()


def run_cli(
    *args: str, timeout: float = 30, check: bool = False, **kw
) -> subprocess.CompletedProcess:
    r = subprocess.run(
        [sys.executable, "-m", "baton", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        **kw,
    )
    if check and r.returncode != 0:
        raise AssertionError(f"baton {' '.join(args)} -> {r.returncode}\n{r.stdout}\n{r.stderr}")
    return r


class Peer:
    """A helper script running in its own process (a second participant)."""

    def __init__(self, script: str, *args: str):
        self.proc = subprocess.Popen(
            [sys.executable, str(HELPERS / script), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self._pending = b""  # bytes read from stdout past the last line returned

    def readline(self, timeout: float = 10.0) -> str:
        """The peer's next line. Reads the pipe directly (not through a buffered file, whose
        buffer select() cannot see), so lines the peer wrote together are all found."""
        import select

        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._pending:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([fd], [], [], max(left, 0))
            if not ready:
                raise AssertionError(f"peer said nothing in {timeout} s; stderr: {self.stderr()}")
            chunk = os.read(fd, 65536)
            if not chunk:
                self.proc.wait(timeout=5)
                raise AssertionError(f"peer exited ({self.proc.poll()}): {self.stderr()}")
            self._pending += chunk
        line, self._pending = self._pending.split(b"\n", 1)
        return line.decode().strip()

    def expect(self, word: str, timeout: float = 10.0) -> str:
        line = self.readline(timeout)
        assert line.startswith(word), f"expected {word!r}, got {line!r}; stderr: {self.stderr()}"
        return line

    def stderr(self) -> str:
        if self.proc.poll() is None:
            return "(running)"
        return self.proc.stderr.read().decode(errors="replace")

    def stop(self) -> int:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=5)
            except (subprocess.TimeoutExpired, BrokenPipeError):
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


@pytest.fixture
def peer(ns: str):
    started: list[Peer] = []

    def start(script: str, *args: str) -> Peer:
        p = Peer(script, *args)
        started.append(p)
        return p

    yield start
    for p in started:
        p.stop()


def wait_for(pred, timeout: float = 10.0, interval: float = 0.02) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(interval)
    return pred()


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """Writes `files` (relative path -> text) under `root`, making folders; returns `root`."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def run_repo_script(name: str, root: Path) -> subprocess.CompletedProcess:
    """Runs scripts/<name> of this repository on the tree at `root` (the lint checks)."""
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / name), str(root)],
        capture_output=True,
        text=True,
        timeout=60,
    )
