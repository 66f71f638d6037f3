"""Runs one open-loop scenario (seed 003 A, B, D, seed 004's chain, the subscriber sweep) for one
system: starts every role as its own process, the daemon the system needs (a private rosmaster,
iox-roudi), waits for the finishers, stops the rest and reads the logs.

The role programs share one protocol (bench/stream/stream_roles.hpp; in Rust
bench/peers/iceoryx2_pingpong/src/stream.rs; in Python py_stream.py): a sender logs
"seq t_send_ns", a receiver "seq t_recv_ns size", a pinger both plus "skipped N". All clocks are
CLOCK_MONOTONIC on one machine, so latency = t_recv - t_send needs no clock sync.

Isolation (the machine is shared): each run gets its own BATON_NAMESPACE, topic prefix, sync
directory, rosmaster port; DDS runs use fixed domain ids (DOMAINS) with loopback-only discovery.
"""

from __future__ import annotations

import itertools
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .common import ROOT, Context, ExperimentFailed

I2_STREAM = ROOT / "bench/peers/iceoryx2_pingpong/target/release/baton-peer-iceoryx2-stream"
ROUDI_CONFIG = ROOT / "bench/peers/iceoryx_classic/roudi_stream.toml"
PY_STREAM = Path(__file__).with_name("py_stream.py")
# Fixed DDS domain ids for these experiments (61-63 are this suite part's; pingpong.py derives
# its own in 40-89 for scenario C).
DOMAINS = {"cyclonedds": 61, "rclpy-fastrtps": 62}
# Every system with a stream program and its delivery guarantee (seed 003 set "parameters that
# guarantee delivery"): a queue of `depth` with a waiting publisher where the system has one,
# an unbounded history where it has not.
SYSTEMS = {
    "baton": "shared memory; reliable keep-last(depth), the publisher waits on a full queue",
    "iceoryx2": "shared memory; buffer = depth, the publisher retries until delivered",
    "iceoryx": "shared memory + RouDi; queue = depth, BLOCK_PRODUCER / WAIT_FOR_CONSUMER",
    "cyclonedds": "DDS, loopback UDP; reliable keep-all (unbounded history)",
    "roscpp": "ROS 1 TCPROS; queue_size 0 (unbounded) on both ends",
    "rclpy-fastrtps": "ROS 2 rclpy on Fast DDS; reliable keep-all (unbounded history)",
    "ros1-rospy": "ROS 1 rospy TCPROS; synchronous publish, unbounded subscriber queue",
}
# Rough seconds to start a run (processes, daemon, discovery), per extra process and per
# message, for the progress bar's ETA only.
STARTUP_S = {"iceoryx": 1.5, "roscpp": 0.8, "rclpy-fastrtps": 1.5, "ros1-rospy": 1.5}
PER_PROCESS_S = {"rclpy-fastrtps": 0.6, "ros1-rospy": 0.5, "cyclonedds": 0.06, "roscpp": 0.03}
PER_MESSAGE_S = {"rclpy-fastrtps": 2e-4, "ros1-rospy": 2e-4}
# Seed 004's chain nodes on ROS 1 (bench/seed004/chain_roles.hpp): the same protocol, a ROS 1
# message type, handled in the client library's callback.
SEED004_NODES = {
    "seed004-baton": lambda ctx: [str(ctx.build / "bench/seed004/baton-bench-seed004")],
    "seed004-roscpp": lambda ctx: [str(ctx.build / "bench/seed004/baton-bench-seed004-roscpp")],
    "seed004-rospy": lambda ctx: [
        "/usr/bin/python3",
        str(ROOT / "bench/seed004/rospy_chain.py"),
        "--system",
        "rospy",
    ],
}
# Systems whose runs need a rosmaster.
ROS1_SYSTEMS = {"roscpp", "ros1-rospy", *SEED004_NODES}
_runs = itertools.count(1)


def eta(system: str, messages: int, processes: int = 2, paced_s: float = 0.0) -> float:
    """Expected seconds of one run, for the progress bar."""
    start = STARTUP_S.get(system, 0.3) + (processes - 2) * PER_PROCESS_S.get(system, 0.01)
    return start + paced_s + messages * PER_MESSAGE_S.get(system, 2e-5)


@dataclass
class Role:
    name: str  # unique in the run: file names and ROS node names
    role: str  # sender | receiver | relay | pinger
    args: dict = field(default_factory=dict)  # --key value (topics, sizes, rate, ...)
    cpu: int = -1
    system: str = ""  # this role's program when it differs from the run's (mixed ROS 1 chains)


@dataclass
class Logs:
    sends: dict[str, dict[int, int]]  # role name -> seq -> t_send_ns
    recvs: dict[str, list[tuple[int, int, int]]]  # role name -> [(seq, t_recv_ns, size)]
    stats: dict[str, dict[str, int]]  # pinger name -> {"skipped": n, "corrupt": n}
    wall_s: float


def command(ctx: Context, system: str) -> tuple[list[str], dict]:
    """argv prefix and environment of `system`'s stream program."""
    peers = ctx.build / "bench/peers"
    if system == "baton":
        return [str(ctx.build / "bench/stream/baton-bench-stream")], {}
    if system == "iceoryx":
        return [str(peers / "baton-peer-iceoryx-stream")], {}
    if system == "iceoryx2":
        return [str(I2_STREAM)], {}
    if system == "cyclonedds":
        return [str(peers / "baton-peer-cyclonedds-stream"), "--domain", "61"], {}
    if system == "roscpp":
        return [str(peers / "baton-peer-roscpp-stream")], {}
    if system == "rclpy-fastrtps":
        py = ROOT / ".venv-ros/bin/python"
        if not py.exists():
            raise ExperimentFailed(".venv-ros missing: run scripts/install-ros-wheels.sh")
        env = {
            "ROS_DOMAIN_ID": str(DOMAINS[system]),
            "ROS_AUTOMATIC_DISCOVERY_RANGE": "LOCALHOST",
            "PYTHONPATH": "",
        }
        return [str(py), str(PY_STREAM), "--system", "rclpy"], env
    if system == "ros1-rospy":
        return ["/usr/bin/python3", str(PY_STREAM), "--system", "rospy"], {"PYTHONPATH": ""}
    if system in SEED004_NODES:  # seed 004's ROS 1 chain nodes (bench/seed004)
        return SEED004_NODES[system](ctx), {"PYTHONPATH": ""}
    raise ExperimentFailed(f"unknown system {system}")


def _port_open(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        return True
    except OSError:
        return False


def _roudi_running() -> bool:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        s.connect("/tmp/roudi")
        return True
    except OSError:
        return False
    finally:
        s.close()


def _wait_until(ready, proc: subprocess.Popen, what: str, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not ready():
        if proc.poll() is not None:
            raise ExperimentFailed(f"{what} exited during start-up (status {proc.returncode})")
        if time.monotonic() > deadline:
            raise ExperimentFailed(f"{what} did not start within {seconds:.0f} s")
        time.sleep(0.05)


def start_daemon(system: str, env: dict, ros_home: Path | None = None) -> subprocess.Popen | None:
    """The daemon `system` needs for this run (updates `env`), or None. A rosmaster listens on a
    free port of 127.0.0.1 with ROS_HOME `ros_home` (run_roles: the run's own, removed with it;
    default: one shared directory)."""
    if system in ROS1_SYSTEMS:
        if shutil.which("rosmaster") is None:
            raise ExperimentFailed("rosmaster not installed: run scripts/install-ros1.sh")
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        env.update(
            ROS_MASTER_URI=f"http://127.0.0.1:{port}",
            ROS_IP="127.0.0.1",
            ROS_HOME=str(ros_home or "/tmp/baton-ros1-home"),
        )
        p = subprocess.Popen(
            ["rosmaster", "--core", "-p", str(port)],
            env={**os.environ, **env},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _wait_until(lambda: _port_open(port), p, "rosmaster", 15)
        return p
    if system == "iceoryx":
        if _roudi_running():
            return None  # someone's RouDi: used as is (a loan error says if its pools are short)
        if shutil.which("iox-roudi") is None:
            raise ExperimentFailed("iox-roudi not installed (apt install iceoryx)")
        p = subprocess.Popen(
            ["iox-roudi", "-c", str(ROUDI_CONFIG), "-l", "warning"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _wait_until(_roudi_running, p, "iox-roudi", 20)
        return p
    return None


def _stop(p: subprocess.Popen, grace: float = 3.0) -> None:
    _stop_all([p], grace)


def _stop_all(procs: list[subprocess.Popen], grace: float) -> None:
    """SIGTERM to every process at once, then SIGKILL to those still alive after `grace`
    seconds in all. One at a time, a failed 64-subscriber run took 64 x grace to tear down (a
    receiver blocked in a long wait sees the signal only when its wait ends)."""
    alive = [p for p in procs if p.poll() is None]
    for p in alive:
        p.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + grace
    for p in alive:
        try:
            p.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def _last_line(path: Path) -> str:
    try:
        lines = [ln for ln in path.read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return ""
    return lines[-1][:300] if lines else ""


def _read_pairs(path: Path) -> dict[int, int]:
    out = {}
    for line in path.read_text().splitlines():
        seq, t = line.split()[:2]
        out[int(seq)] = int(t)
    return out


def _read_triples(path: Path) -> list[tuple[int, int, int]]:
    out = []
    for line in path.read_text().splitlines():
        seq, t, size = line.split()
        out.append((int(seq), int(t), int(size)))
    return out


def run_roles(
    ctx: Context,
    system: str,
    mode: str,
    roles: list[Role],
    common: dict,
    timeout: float,
    watch: Callable[[dict[str, int]], None] | None = None,
) -> Logs:
    """Starts `roles` (each with the `common` options too), waits for every non-relay role to
    exit 0 within `timeout` seconds, and returns their logs. Raises ExperimentFailed with the
    first failing role's last error line. `watch`, if given, is called with {role name: pid} of
    the roles still running on every turn of the wait (every 50 ms), e.g. to sample memory."""
    argv0, env = command(ctx, system)
    run_id = f"sa{os.getpid()}x{next(_runs)}"
    env = dict(env, BATON_NAMESPACE=run_id)
    sync = Path(tempfile.mkdtemp(prefix=f"baton-suite-sync-{run_id}-"))
    procs: list[tuple[Role, subprocess.Popen]] = []
    daemon = None
    started = time.monotonic()
    try:
        daemon = start_daemon(system, env, sync / "ros_home")
        for r in roles:
            r_argv0, r_env = command(ctx, r.system) if r.system else (argv0, {})
            opts = {**common, **r.args, "mode": mode, "sync": str(sync), "name": r.name}
            opts.setdefault("timeout", timeout)
            argv = list(r_argv0) + ["--role", r.role, "--cpu", str(r.cpu)]
            for k, v in opts.items():
                if k in ("out", "in"):
                    v = f"/{run_id}/{v}"  # topics private to this run
                argv += [f"--{k.replace('_', '-')}", str(v)]
            if not Path(argv[0]).exists() and shutil.which(argv[0]) is None:
                raise ExperimentFailed(f"not built / not installed: {argv[0]}")
            with open(sync / f"{r.name}.err", "w") as err:
                p = subprocess.Popen(
                    argv,
                    cwd=ROOT,
                    env={**os.environ, **env, **r_env},
                    stdout=subprocess.DEVNULL,
                    stderr=err,
                )
            procs.append((r, p))
        finishers = [(r, p) for r, p in procs if r.role != "relay"]
        deadline = time.monotonic() + timeout + 30
        while True:
            for r, p in procs:
                if p.poll() not in (None, 0):
                    why = _last_line(sync / f"{r.name}.err") or f"exit {p.returncode}"
                    raise ExperimentFailed(f"{system} {r.role} {r.name}: {why}")
            if all(p.poll() == 0 for _, p in finishers):
                break
            if watch is not None:
                watch({r.name: p.pid for r, p in procs if p.poll() is None})
            if time.monotonic() > deadline:
                raise ExperimentFailed(f"{system}: run did not finish within {timeout + 30:.0f} s")
            time.sleep(0.05)
        wall = time.monotonic() - started
        logs = Logs({}, {}, {}, wall)
        for r, _ in finishers:
            if (sync / f"{r.name}.send").exists():
                logs.sends[r.name] = _read_pairs(sync / f"{r.name}.send")
            if (sync / f"{r.name}.recv").exists():
                logs.recvs[r.name] = _read_triples(sync / f"{r.name}.recv")
            if (sync / f"{r.name}.stats").exists():
                kv = (ln.split() for ln in (sync / f"{r.name}.stats").read_text().splitlines())
                logs.stats[r.name] = {k: int(v) for k, v in kv}
        return logs
    finally:
        _stop_all([p for _, p in procs], grace=2.0)
        if daemon is not None:
            _stop(daemon)
        shutil.rmtree(sync, ignore_errors=True)
        _remove_leftovers(run_id, [p.pid for _, p in procs])


def _remove_leftovers(run_id: str, pids: list[int]) -> None:
    """What a killed role leaves behind: baton segments of this run's private namespace and
    iceoryx runtime sockets (/tmp/baton-stream-<name>-<pid>); nothing of other runs."""
    for f in Path("/dev/shm").glob(f"baton.*.{run_id}.*"):
        f.unlink(missing_ok=True)
    for pid in pids:
        for f in Path("/tmp").glob(f"baton-stream-*-{pid}*"):
            f.unlink(missing_ok=True)


def latencies_us(sends: dict[int, int], recvs: list[tuple[int, int, int]]) -> list[float]:
    """One-way (or round-trip, for a pinger's own log) latency per received message, in µs, in
    receipt order."""
    return [(t - sends[seq]) / 1000.0 for seq, t, _ in recvs if seq in sends]


def by_size(
    sends: dict[int, int], recvs: list[tuple[int, int, int]], sizes: list[int], per_size: int
) -> list[tuple[int, int, int, list[float]]]:
    """Splits a run with a size schedule (`per_size` messages of each of `sizes`, in order):
    per size (size, first seq, messages sent, latencies in µs of those received)."""
    out = []
    for k, size in enumerate(sizes):
        first = k * per_size
        mine = [(s, t) for s, t, _ in recvs if first <= s < first + per_size]
        sent = sum(1 for s in range(first, first + per_size) if s in sends)
        out.append((size, first, sent, [(t - sends[s]) / 1000.0 for s, t in mine if s in sends]))
    return out
