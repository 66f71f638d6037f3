"""Issue 22's benchmark: C++ ping-pong through rcl (the layer under rclcpp) with C++ messages,
sensor_msgs::msg::Image of 64 B, 64 KiB, 4 MiB and a 4K frame, two processes on one RMW:

    fastdds          rmw_fastrtps_cpp, Fast DDS's default transports (UDP + its shared memory)
    fastdds-udp      rmw_fastrtps_cpp with FASTDDS_BUILTIN_TRANSPORTS=UDPv4
    baton            rmw_baton_cpp (LD_PRELOAD + RMW_IMPLEMENTATION, as for the wheels)

Fast DDS's data-sharing (zero copy) needs a bounded, plain type; an Image is neither, so rclcpp
users of Image never get it and the Fast DDS rows have none.

Per cell: one-way latency = round trip / 2 (µs), median and p99 over `runs` after `warmup`
(bench/ros2/rcl_pingpong.cpp). Ratios: baton / fastdds in the same size; target ≤ 0.2× at 4 MiB
and 4K.

    .venv/bin/python bench/suite/run.py --only rcl_pingpong                 # quick
    .venv/bin/python -m bench.suite.exp_rcl_pingpong --system baton --size 4k --runs 50
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sysconfig
import tempfile
from pathlib import Path

from .common import ROOT, Context, ExperimentFailed, Result, Task, md_table, read_floats, stats
from .exp_wire_stream import rmw_env

NAME = "rcl_pingpong"
SIZES = {"64": 64, "64k": 65536, "4m": 4 << 20, "4k": 3840 * 2160 * 3}  # Image data bytes
SYSTEMS = {
    "fastdds": "rcl C++ on rmw_fastrtps_cpp (UDP + SHM)",
    "fastdds-udp": "rcl C++ on rmw_fastrtps_cpp (UDPv4 only)",
    "baton": "rcl C++ on rmw_baton_cpp",
}
TARGET_RATIO = {"4m": 0.2, "4k": 0.2}  # baton / fastdds, median


def rcl_env(system: str, domain: int, namespace: str, build: Path) -> dict:
    """A C++ rcl program's environment: the wheels' libraries on LD_LIBRARY_PATH (they carry no
    RPATH), libpython preloaded (the wheels leave its symbols to the process), and the RMW."""
    env = rmw_env("baton" if system == "baton" else "fastdds", domain, namespace, build)
    venv = ROOT / ".venv-ros"
    libs = [str(venv / "lib")]
    libs += sorted(str(p) for p in (venv / "lib").glob("python3*/site-packages/*.libs"))
    if env.get("LD_LIBRARY_PATH"):
        libs.append(env["LD_LIBRARY_PATH"])
    env["LD_LIBRARY_PATH"] = ":".join(libs)
    libpython = Path(sysconfig.get_config_var("LIBDIR")) / sysconfig.get_config_var("INSTSONAME")
    env["LD_PRELOAD"] = " ".join(x for x in (str(libpython), env.get("LD_PRELOAD", "")) if x)
    if system == "fastdds-udp":
        env["FASTDDS_BUILTIN_TRANSPORTS"] = "UDPv4"
    return env


def require_rcl(build: Path, exe: Path, system: str) -> None:
    """Fails the cell loudly, with the install hint, when a piece of an rcl row is missing."""
    if not (ROOT / ".venv-ros/lib/librcl.so").exists():
        raise ExperimentFailed(
            "ROS 2 wheels missing (.venv-ros/lib/librcl.so): run scripts/install-ros-wheels.sh, "
            "then make build"
        )
    if not exe.exists():
        raise ExperimentFailed(f"not built: {exe} (make build, with the ROS 2 wheels in .venv-ros)")
    rmw = build / "src/ros2/rmw/librmw_baton_cpp.so"
    if system == "baton" and not rmw.exists():
        raise ExperimentFailed(f"not built: {rmw} (make build after scripts/install-ros-wheels.sh)")


def run_cell(
    build: Path, system: str, size: str, runs: int, warmup: int, domain: int, timeout: float
) -> list[float]:
    """One-way latencies (µs) of one cell; raises ExperimentFailed with the reason."""
    exe = build / "bench/ros2/baton-bench-rcl-pingpong"
    require_rcl(build, exe, system)
    tag = f"rclpp{os.getpid()}{system.replace('-', '')}{size}"
    topic = f"/{tag}"
    env = rcl_env(system, domain, tag, build)
    common = ["--size", size, "--topic", topic, "--runs", str(runs), "--warmup", str(warmup)]
    common += ["--timeout", str(timeout)]
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "one_way_us.txt"
        pong = subprocess.Popen(
            [str(exe), "--role", "pong", *common],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            ping = subprocess.run(
                [str(exe), "--role", "ping", *common, "--raw", str(raw)],
                env=env,
                capture_output=True,
                text=True,
                timeout=timeout * 2 + 60,
            )
        except subprocess.TimeoutExpired as e:
            pong.kill()
            raise ExperimentFailed(f"{system} {size}: ping timed out") from e
        try:
            _, pong_err = pong.communicate(timeout=timeout + 10)
        except subprocess.TimeoutExpired:
            pong.kill()
            _, pong_err = pong.communicate()
        if ping.returncode != 0:
            why = (ping.stderr.strip().splitlines() or [f"exit {ping.returncode}"])[-1]
            pong_why = (pong_err.strip().splitlines() or [""])[-1]
            raise ExperimentFailed(f"{system} {size}: {why[:300]} {pong_why[:200]}".strip())
        return read_floats(raw)


def tasks(ctx: Context) -> list[Task]:
    p = ctx.params[NAME]
    out = []
    for size in p["sizes"]:
        runs = p["runs_4k"] if size == "4k" else p["runs"]
        for system in p["systems"]:  # one size's systems side by side
            label = f"rcl ping-pong {size} {system}"

            def fn(c: Context, system=system, size=size, runs=runs) -> list[Result]:
                v = run_cell(
                    c.build, system, size, runs, p["warmup"], p["dds_domain"], p["timeout_s"]
                )
                return [Result(NAME, system, SYSTEMS[system], SIZES[size], v, "us")]

            out.append(Task(NAME, label, fn, weight=2 + runs * (0.25 if size == "4k" else 0.02)))
    return out


def _fmt(v: float | None) -> str:
    return "failed" if v is None else (f"{v:.0f}" if v >= 100 else f"{v:.1f}")


def report(ctx: Context, summaries: list[dict], plots: Path) -> tuple[str, str]:
    p = ctx.params[NAME]
    res = {(r.system, r.size): r for r in ctx.results if r.experiment == NAME}
    rows, short = [], []
    for size in p["sizes"]:
        n = SIZES[size]
        med = {}
        row = [size]
        for system in p["systems"]:
            r = res.get((system, n))
            s = stats(r.values) if r and r.values else None
            med[system] = s["median"] if s else None
            row += [_fmt(s["median"] if s else None), _fmt(s["p99"] if s else None)]
        ratio = "-"
        if med.get("baton") and med.get("fastdds"):
            x = med["baton"] / med["fastdds"]
            target = TARGET_RATIO.get(size)
            ratio = f"{x:.2f}" + ("" if target is None else (" ok" if x <= target else " MISS"))
        row.append(ratio)
        rows.append(row)
        short.append(f"{size}: baton/fastdds {ratio}")
    header = ["size"]
    for system in p["systems"]:
        header += [f"{system} median µs", f"{system} p99 µs"]
    header.append("baton / fastdds (median)")
    md = [
        "## rcl C++ ping-pong: sensor_msgs::msg::Image through rcl (issue 22)",
        "",
        "Two C++ processes using rcl with C++ messages (`rosidl_typesupport_cpp`), as rclcpp "
        "nodes do underneath (`bench/ros2/rcl_pingpong.cpp`): ping publishes, pong takes and "
        "publishes back, reliable keep last 1; one-way = round trip / 2, µs. "
        f"Runs per cell: {p['runs']} ({p['runs_4k']} at 4K) after {p['warmup']} warm-up. "
        + "; ".join(f"`{k}` = {v}" for k, v in SYSTEMS.items() if k in p["systems"])
        + ". Target: baton ≤ 0.2× Fast DDS at 4 MiB and 4K. A failed cell's reason is in the "
        "failures list below the table.",
        "",
        md_table(header, rows),
        "",
    ]
    return "\n".join(md), "\n".join(short)


def main(argv: list[str] | None = None) -> int:
    """One cell from the command line: prints median and p99 one-way latency."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--system", choices=list(SYSTEMS), required=True)
    ap.add_argument("--size", choices=list(SIZES), required=True)
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--domain", type=int, default=63)
    ap.add_argument("--build", type=Path, default=ROOT / "build")
    a = ap.parse_args(argv)
    v = run_cell(a.build, a.system, a.size, a.runs, a.warmup, a.domain, 60)
    s = stats(v)
    print(f"{a.system} {a.size}: median {s['median']:.1f} µs, p99 {s['p99']:.1f} µs, n {len(v)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
