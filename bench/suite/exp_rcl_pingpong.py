"""Issue 22's benchmark: C++ ping-pong through rcl (the layer under rclcpp) with C++ messages at
64 B, 64 KiB, 4 MiB and a 4K frame, two processes on one RMW. Rows (SYSTEMS):

    fastdds          rmw_fastrtps_cpp, sensor_msgs Image, Fast DDS's default transports (UDP + its
                     shared memory); rmw_fastrtps_cpp turns data-sharing off
    fastdds-udp      the same with FASTDDS_BUILTIN_TRANSPORTS=UDPv4
    fastdds-ds       rmw_fastrtps_cpp with data-sharing on (bench/ros2/fastdds_data_sharing.xml,
                     RMW_FASTRTPS_USE_QOS_FROM_XML=1), a fixed-size type (baton_bench_msgs
                     FixedN, bench/ros2/msg), owned messages (a copy into its pool, one out)
    fastdds-loan     the same with rcl loans on both ends: Fast DDS's zero copy
    baton            rmw_baton_cpp (LD_PRELOAD + RMW_IMPLEMENTATION, as for the wheels), Image
    baton-fixed      rmw_baton_cpp, the fixed-size type, owned messages
    baton-loan       rmw_baton_cpp, the fixed-size type with rcl loans on both ends

An Image cannot be loaned by either RMW (its std::vector cannot point into shared memory) nor use
Fast DDS's data-sharing (not a plain type); the fixed-size types carry the same bytes as plain
arrays. Loan rows write only the sequence number (as native baton's ping-pong, issue 2).

Per cell: one-way latency = round trip / 2 (µs), median and p99 over `runs` after `warmup`
(bench/ros2/rcl_pingpong.cpp). Ratios: baton / fastdds (Image) and baton-loan / fastdds-loan in
the same size, target ≤ 0.2× at 4 MiB and 4K; baton-loan flat from 64 B to 4K (every size's
median within ± 20 % of the 64 B one).

    .venv/bin/python bench/suite/run.py --only rcl_pingpong                 # quick
    .venv/bin/python -m bench.suite.exp_rcl_pingpong --system baton-loan --size 4k --runs 50
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
SIZES = {"64": 64, "64k": 65536, "4m": 4 << 20, "4k": 3840 * 2160 * 3}  # payload bytes
SYSTEMS = {
    "fastdds": "rcl C++ on rmw_fastrtps_cpp, Image (UDP + SHM)",
    "fastdds-udp": "rcl C++ on rmw_fastrtps_cpp, Image (UDPv4 only)",
    "fastdds-ds": "rcl C++ on rmw_fastrtps_cpp, fixed-size type, data-sharing, no loans",
    "fastdds-loan": "rcl C++ on rmw_fastrtps_cpp, fixed-size type, data-sharing + loans",
    "baton": "rcl C++ on rmw_baton_cpp, Image (no loans)",
    "baton-fixed": "rcl C++ on rmw_baton_cpp, fixed-size type, no loans",
    "baton-loan": "rcl C++ on rmw_baton_cpp, fixed-size type + loans",
}
# The program's --message / --loans of each row.
MESSAGE = {s: ("image" if s in ("fastdds", "fastdds-udp", "baton") else "fixed") for s in SYSTEMS}
LOANS = {s: s.endswith("-loan") for s in SYSTEMS}
TARGET_RATIO = {"4m": 0.2, "4k": 0.2}  # baton / Fast DDS, median
# (baton row, Fast DDS row) pairs whose ratio is reported against TARGET_RATIO.
PAIRS = [("baton", "fastdds"), ("baton-loan", "fastdds-loan")]
FLAT = 0.2  # baton-loan: every size within ± 20 % of the 64 B median
DATA_SHARING_XML = ROOT / "bench/ros2/fastdds_data_sharing.xml"


def rcl_env(system: str, domain: int, namespace: str, build: Path) -> dict:
    """A C++ rcl program's environment: the wheels' libraries on LD_LIBRARY_PATH (they carry no
    RPATH), libpython preloaded (the wheels leave its symbols to the process), and the RMW."""
    env = rmw_env("baton" if system.startswith("baton") else "fastdds", domain, namespace, build)
    venv = ROOT / ".venv-ros"
    # The fixed-size bench messages' libraries (bench/ros2/msg), which rosidl_typesupport_cpp's
    # dispatcher finds on LD_LIBRARY_PATH, then the wheels'.
    libs = [str(build / "ros2_msgs/lib"), str(venv / "lib")]
    libs += sorted(str(p) for p in (venv / "lib").glob("python3*/site-packages/*.libs"))
    if env.get("LD_LIBRARY_PATH"):
        libs.append(env["LD_LIBRARY_PATH"])
    env["LD_LIBRARY_PATH"] = ":".join(libs)
    libpython = Path(sysconfig.get_config_var("LIBDIR")) / sysconfig.get_config_var("INSTSONAME")
    env["LD_PRELOAD"] = " ".join(x for x in (str(libpython), env.get("LD_PRELOAD", "")) if x)
    if system == "fastdds-udp":
        env["FASTDDS_BUILTIN_TRANSPORTS"] = "UDPv4"
    if system in ("fastdds-ds", "fastdds-loan"):
        env["FASTDDS_DEFAULT_PROFILES_FILE"] = str(DATA_SHARING_XML)
        env["RMW_FASTRTPS_USE_QOS_FROM_XML"] = "1"
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
    if system.startswith("baton") and not rmw.exists():
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
    common += ["--timeout", str(timeout), "--message", MESSAGE[system]]
    common += ["--loans", "1" if LOANS[system] else "0"]
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


def _ratio(med: dict, size: str, num: str, den: str) -> str:
    """num / den of the medians, with the target verdict where the size has one."""
    if not (med.get(num) and med.get(den)):
        return "-"
    x = med[num] / med[den]
    target = TARGET_RATIO.get(size)
    return f"{x:.2f}" + ("" if target is None else (" ok" if x <= target else " MISS"))


def flatness(medians: dict[str, float | None]) -> str:
    """baton-loan's spread over the sizes: each median / the 64 B one, and the verdict."""
    base = medians.get("64")
    if not base or any(v is None for v in medians.values()):
        return "baton-loan flat: not measured in every size"
    parts = [f"{size} {v / base:.2f}" for size, v in medians.items()]
    ok = all(abs(v / base - 1) <= FLAT for v in medians.values())
    return f"baton-loan flat (÷ 64 B): {', '.join(parts)}: " + ("ok" if ok else "MISS")


def report(ctx: Context, summaries: list[dict], plots: Path) -> tuple[str, str]:
    p = ctx.params[NAME]
    res = {(r.system, r.size): r for r in ctx.results if r.experiment == NAME}
    pairs = [(b, f) for b, f in PAIRS if b in p["systems"] and f in p["systems"]]
    rows, short, loan_medians = [], [], {}
    for size in p["sizes"]:
        n = SIZES[size]
        med = {}
        row = [size]
        for system in p["systems"]:
            r = res.get((system, n))
            s = stats(r.values) if r and r.values else None
            med[system] = s["median"] if s else None
            row.append(f"{_fmt(med[system])} / {_fmt(s['p99'] if s else None)}")
        loan_medians[size] = med.get("baton-loan")
        ratios = [_ratio(med, size, b, f) for b, f in pairs]
        rows.append(row + ratios)
        short.append(f"{size}: " + ", ".join(f"{b}/{f} {x}" for (b, f), x in zip(pairs, ratios)))
    flat = flatness(loan_medians) if "baton-loan" in p["systems"] else ""
    header = ["size"] + [f"{system} median / p99 µs" for system in p["systems"]]
    header += [f"{b} / {f} (median)" for b, f in pairs]
    md = [
        "## rcl C++ ping-pong through rcl, with and without loans (issue 22)",
        "",
        "Two C++ processes using rcl with C++ messages (`rosidl_typesupport_cpp`), as rclcpp "
        "nodes do underneath (`bench/ros2/rcl_pingpong.cpp`): ping publishes, pong takes and "
        "publishes back, reliable keep last 1; one-way = round trip / 2, µs. "
        f"Runs per cell: {p['runs']} ({p['runs_4k']} at 4K) after {p['warmup']} warm-up. "
        + "; ".join(f"`{k}` = {v}" for k, v in SYSTEMS.items() if k in p["systems"])
        + ". Targets: baton ≤ 0.2× Fast DDS at 4 MiB and 4K; with loans flat from 64 B to 4K "
        "(± 20 %). A failed cell's reason is in the failures list below the table.",
        "",
        md_table(header, rows),
        "",
        flat,
        "",
    ]
    if flat:
        short.append(flat)
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
