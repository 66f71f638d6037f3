"""What the ROS 1 tests run beside themselves (as tests/ros1/ros1_test_env.hpp does for C++): a
private Debian `roscore` on a free port with its own ROS_MASTER_URI / ROS_HOME, loopback only,
and stock rospy peers (tests/ros1/rospy_peer.py under /usr/bin/python3). Readiness is a printed
line, never a sleep."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, Peer

SYSTEM_PYTHON = "/usr/bin/python3"  # Debian's rospy runs with the system Python
ROSPY_PEER = ROOT / "tests" / "ros1" / "rospy_peer.py"


def missing_ros1() -> str:
    """Why the ROS 1 tests cannot run here, or ""."""
    if not os.access("/usr/bin/roscore", os.X_OK):
        return "Debian's ros-core is not installed (scripts/install-ros1.sh)"
    probe = subprocess.run(
        [SYSTEM_PYTHON, "-c", "import rospy, std_msgs.msg, sensor_msgs.msg"], capture_output=True
    )
    if probe.returncode != 0:
        return "rospy / python3-sensor-msgs are not installed (scripts/install-ros1.sh)"
    import baton.ros1

    if not baton.ros1.NODE_AVAILABLE:
        return "baton was built without the ROS 1 node (xmlrpcpp: scripts/install-ros1.sh)"
    return ""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Ros1Process(Peer):
    """A ROS 1 process (roscore, a rospy peer) in its own session, its output read line by line;
    stopped with SIGINT to its process group, as roslaunch expects of a Ctrl-C."""

    def __init__(self, argv: list[str], env: dict[str, str]):
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
        self._pending = b""
        self.lines: list[str] = []

    def readline(self, timeout: float = 30.0) -> str:
        line = super().readline(timeout)
        self.lines.append(line)
        return line

    def wait_for(self, text: str, timeout: float = 60.0) -> str:
        """Reads lines until one contains `text`; returns it."""
        while True:
            line = self.readline(timeout)
            if text in line:
                return line

    def expect(self, word: str, timeout: float = 60.0) -> str:
        """Reads lines until one starts with `word` (rospy's warnings come on the same pipe)."""
        while True:
            line = self.readline(timeout)
            if line.startswith(word):
                return line

    def stderr(self) -> str:
        return "\n".join(self.lines[-20:])

    def stop(self) -> int:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGINT)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        return self.proc.returncode


class Roscore:
    def __init__(self, tmp: Path, monkeypatch: pytest.MonkeyPatch):
        self.port = free_port()
        self.uri = f"http://127.0.0.1:{self.port}/"
        self.env_vars = {
            "ROS_MASTER_URI": self.uri,
            "ROS_HOME": str(tmp / "ros_home"),
            "ROS_LOG_DIR": str(tmp / "ros_log"),
            "ROS_IP": "127.0.0.1",
            "PYTHONUNBUFFERED": "1",
        }
        for k, v in self.env_vars.items():
            monkeypatch.setenv(k, v)
        monkeypatch.delenv("ROS_HOSTNAME", raising=False)
        monkeypatch.delenv("ROS_NAMESPACE", raising=False)
        self.started: list[Ros1Process] = []
        self.core = self.start(["/usr/bin/roscore", "-p", str(self.port)])
        # Ready once roslaunch has started rosout too (it prints this line then).
        self.core.wait_for("started core service [/rosout]")

    def env(self) -> dict[str, str]:
        return dict(os.environ, **self.env_vars)

    def start(self, argv: list[str]) -> Ros1Process:
        p = Ros1Process(argv, self.env())
        self.started.append(p)
        return p

    def rospy(self, *args: str) -> Ros1Process:
        """A stock rospy node: rospy_peer.py MODE ARGS... (it prints "ready" once registered)."""
        return self.start([SYSTEM_PYTHON, str(ROSPY_PEER), *args])

    def stop(self) -> None:
        for p in reversed(self.started):
            p.stop()


@pytest.fixture
def roscore(ns: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A private roscore; ROS_MASTER_URI etc. point at it for this test and its children."""
    why = missing_ros1()
    if why:
        pytest.fail(why)  # the ROS 1 tests are part of `make test`: a missing piece is a failure
    core = Roscore(tmp_path, monkeypatch)
    yield core
    import gc

    gc.collect()
    core.stop()
