"""Issue 22 item 4's figure: how long an rclpy node waiting in `rclpy.spin` takes to exit after
one SIGTERM, or one SIGINT as a shell's background job gets it (SIGINT ignored at start), on
rmw_baton_cpp and on rmw_fastrtps_cpp side by side. The node is the one the unit test
`RmwBatonRclpyStop.*` stops (tests/ros2/rclpy_stop_peer.py): one service, or one subscription
and nothing else. The unit test asserts that every node stops, exits 0 and leaves no segment;
this measures how fast (the issue's target: within 1 s, every try).

Per cell: `tries` nodes, started `batch` at a time (starting is most of the time), each signalled
alone once all of its batch are ready; the time from kill() to the process's exit (its pidfd
readable), ms. A node still running `hang_s` after its signal is killed and counted as a hang.

    .venv/bin/python bench/suite/run.py --only rclpy_stop                   # quick
    .venv/bin/python -m bench.suite.exp_rclpy_stop --system baton --mode service --signal int
"""

from __future__ import annotations

import argparse
import os
import select
import signal
import subprocess
import time
from pathlib import Path

from .common import ROOT, Context, ExperimentFailed, Result, Task, md_table, stats
from .exp_wire_stream import PYTHON, rmw_env

NAME = "rclpy_stop"
PEER = ROOT / "tests/ros2/rclpy_stop_peer.py"
SYSTEMS = {"baton": "rclpy on rmw_baton_cpp", "fastdds": "rclpy on rmw_fastrtps_cpp"}
MODES = ["service", "subscription"]
# The signal, and whether SIGINT is ignored at start (a background job's SIGINT).
SIGNALS = {"term": (signal.SIGTERM, False), "int": (signal.SIGINT, True)}
TARGET_MS = 1000.0  # issue 22 item 4: within a second, every try


def _read_until(proc: subprocess.Popen, needle: str, timeout: float) -> tuple[bool, str]:
    """Reads the peer's stdout until a line holds `needle`; (found, what was read)."""
    fd, seen, end = proc.stdout.fileno(), b"", time.monotonic() + timeout
    while needle.encode() not in seen:
        # timeout 0 still reads what an exited peer left in the pipe
        if not select.select([fd], [], [], max(0.0, end - time.monotonic()))[0]:
            return False, seen.decode(errors="replace")
        chunk = os.read(fd, 4096)
        if not chunk:  # exited
            return False, seen.decode(errors="replace")
        seen += chunk
    return True, seen.decode(errors="replace")


def _time_to_exit(proc: subprocess.Popen, sig: int, hang_s: float) -> float | None:
    """Sends `sig`; ms until the process exited, None if it still ran after hang_s (killed)."""
    pidfd = os.pidfd_open(proc.pid)
    try:
        start = time.perf_counter()
        os.kill(proc.pid, sig)
        ready = select.select([pidfd], [], [], hang_s)[0]
        took = (time.perf_counter() - start) * 1e3
    finally:
        os.close(pidfd)
    if not ready:
        proc.kill()
    proc.wait()
    return took if ready else None


def run_cell(
    build: Path,
    system: str,
    mode: str,
    sig: str,
    tries: int,
    batch: int,
    domain: int,
    hang_s: float,
) -> tuple[list[float], dict]:
    """Stop times (ms) of the nodes that stopped, and counts of those that did not."""
    if not PYTHON.exists():
        raise ExperimentFailed(".venv-ros missing: run scripts/install-ros-wheels.sh")
    rmw = build / "src/ros2/rmw/librmw_baton_cpp.so"
    if system == "baton" and not rmw.exists():
        raise ExperimentFailed(f"not built: {rmw} (make build after scripts/install-ros-wheels.sh)")
    signum, sigint_ignored = SIGNALS[sig]
    argv = [str(PYTHON), str(PEER), mode] + (["--sigint-ignored"] if sigint_ignored else [])
    times: list[float] = []
    counts = {"hung": 0, "nonzero_exit": 0, "no_stopped_line": 0}
    tag = f"stop{os.getpid()}{system}{mode[:3]}{sig}"
    for first in range(0, tries, batch):
        procs = []
        try:
            for i in range(first, min(first + batch, tries)):
                env = rmw_env(system, domain, f"{tag}-{i}", build)
                procs.append(
                    subprocess.Popen(
                        argv,
                        cwd=PEER.parent,
                        env=env,
                        stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT,
                    )
                )
            for p in procs:
                ok, out = _read_until(p, "ready", 60)
                if not ok:
                    raise ExperimentFailed(f"{system} {mode}: node not ready: {out[-300:]}")
            for p in procs:
                took = _time_to_exit(p, signum, hang_s)
                _, out = _read_until(p, "stopped ", 0)
                if took is None:
                    counts["hung"] += 1
                    continue
                times.append(took)
                counts["nonzero_exit"] += p.returncode != 0
                counts["no_stopped_line"] += "stopped " not in out
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.wait()
                p.stdout.close()
            for f in Path("/dev/shm").glob(f"baton.*.{tag}*"):
                f.unlink(missing_ok=True)
    return times, counts


def tasks(ctx: Context) -> list[Task]:
    p = ctx.params[NAME]
    out = []
    for mode in MODES:
        for sig in SIGNALS:
            for system in p["systems"]:  # one cell's systems side by side
                label = f"rclpy stop {mode} SIG{sig.upper()} {system}"

                def fn(c: Context, system=system, mode=mode, sig=sig) -> list[Result]:
                    v, counts = run_cell(
                        c.build,
                        system,
                        mode,
                        sig,
                        p["tries"],
                        p["batch"],
                        p["dds_domain"],
                        p["hang_s"],
                    )
                    conf = f"{mode} SIG{sig.upper()}"
                    return [Result(NAME, system, conf, 0, v, "ms", extra=counts)]

                out.append(Task(NAME, label, fn, weight=2 + p["tries"] * 0.3))
    return out


def _cell(r: Result | None, tries: int) -> str:
    if r is None:
        return "failed"
    s = stats(r.values) if r.values else None
    within = sum(v <= TARGET_MS for v in r.values)
    fig = f"{s['median']:.0f} / {s['p99']:.0f} / {s['max']:.0f}" if s else "-"
    bad = [f"{v} {k.replace('_', ' ')}" for k, v in r.extra.items() if v]
    return f"{fig} · {within}/{tries} ≤ 1 s" + (f" · {', '.join(bad)}" if bad else "")


def report(ctx: Context, summaries: list[dict], plots: Path) -> tuple[str, str]:
    p = ctx.params[NAME]
    res = {(r.system, r.configuration): r for r in ctx.results if r.experiment == NAME}
    rows, short = [], []
    for mode in MODES:
        for sig in SIGNALS:
            conf = f"{mode} SIG{sig.upper()}"
            cells = [_cell(res.get((system, conf)), p["tries"]) for system in p["systems"]]
            rows.append([conf] + cells)
            b = res.get(("baton", conf))
            met = b is not None and sum(v <= TARGET_MS for v in b.values) == p["tries"]
            short.append(f"{conf}: baton {'ok' if met else 'MISS'} ({cells[0]})")
    header = ["node, signal"] + [f"{SYSTEMS[s]}: median / p99 / max ms" for s in p["systems"]]
    md = [
        "## rclpy nodes stopped by a signal (issue 22 item 4)",
        "",
        "An rclpy node waiting in `rclpy.spin` (`tests/ros2/rclpy_stop_peer.py`: one service, or "
        "one subscription only) is sent one SIGTERM, or one SIGINT with SIGINT ignored at start "
        "(a shell's background job); the time from the signal to the process's exit, ms, "
        f"{p['tries']} nodes per cell ({p['batch']} started at a time, signalled one by one). "
        "Target: every node within 1 s. A node still running "
        f"{p['hang_s']:.0f} s after its signal counts as hung.",
        "",
        md_table(header, rows),
        "",
    ]
    return "\n".join(md), "\n".join(short)


def main(argv: list[str] | None = None) -> int:
    """One cell from the command line."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--system", choices=list(SYSTEMS), required=True)
    ap.add_argument("--mode", choices=MODES, required=True)
    ap.add_argument("--signal", choices=list(SIGNALS), required=True)
    ap.add_argument("--tries", type=int, default=50)
    ap.add_argument("--batch", type=int, default=10)
    ap.add_argument("--domain", type=int, default=60)
    ap.add_argument("--build", type=Path, default=ROOT / "build")
    a = ap.parse_args(argv)
    v, counts = run_cell(a.build, a.system, a.mode, a.signal, a.tries, a.batch, a.domain, 5)
    s = stats(v) if v else None
    within = sum(x <= TARGET_MS for x in v)
    figs = f"median {s['median']:.0f} ms, p99 {s['p99']:.0f}, max {s['max']:.0f}" if s else "none"
    print(f"{a.system} {a.mode} SIG{a.signal.upper()}: {figs}; {within}/{a.tries} ≤ 1 s; {counts}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
