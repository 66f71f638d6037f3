"""rclpy ping-pong on rmw_baton_cpp vs on rmw_fastrtps_cpp, in one run.

    bench/ros2/run.sh [--quick] [--sizes 64,64K,4M] [--samples N] [--build-dir build]

The same unmodified rclpy program (bench/python/pingpong.py --system rclpy: std_msgs/
UInt8MultiArray, reliable keep_last 10, SingleThreadedExecutor.spin_once on the reply, one-way =
RTT / 2 over the samples after a 10 % warm-up) runs twice with the wheels in .venv-ros:
  rclpy-rmw_baton_cpp     LD_PRELOAD=<build>/src/ros2/rmw/librmw_baton_cpp.so
                          RMW_IMPLEMENTATION=rmw_baton_cpp, a fresh BATON_NAMESPACE
  rclpy-rmw_baton_cpp-nowire  the same with BATON_RMW_WIRE=0 (no DDS participant): the cost of the
                          DDS wire when no foreign peer is there (rmw_wire.hpp)
  rclpy-rmw_fastrtps_cpp  the wheels' own RMW, ROS_DOMAIN_ID 59, discovery LOCALHOST
Output: out/bench/ros2_rclpy.json (fresh each run; JSON lines system, mode, size, median, p99,
max, samples, unit) and out/bench/ros2_rclpy_table.md (ratio = baton / Fast DDS median; wire cost
= baton with the wire on / off, median).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "out" / "bench"
PINGPONG = ROOT / "bench" / "python" / "pingpong.py"
PYTHON = ROOT / ".venv-ros" / "bin" / "python"
DOMAIN_ID = "59"


def environment(system: str, build_dir: Path) -> dict:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env["ROS_DOMAIN_ID"] = DOMAIN_ID
    env["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    env.pop("LD_PRELOAD", None)
    env.pop("RMW_IMPLEMENTATION", None)
    if system.startswith("rmw_baton_cpp"):
        env["BATON_RMW_WIRE"] = "0" if system.endswith("-nowire") else "1"
        env["LD_PRELOAD"] = str(build_dir / "src" / "ros2" / "rmw" / "librmw_baton_cpp.so")
        env["RMW_IMPLEMENTATION"] = "rmw_baton_cpp"
        env["BATON_NAMESPACE"] = f"bench-ros2-{os.getpid()}"
    return env


def remove_segments(namespace: str) -> None:
    # rmw_baton_cpp puts ROS domain N in baton namespace "<namespace>-d<N>" (domain 0: as is).
    for ns in (namespace, f"{namespace}-d{DOMAIN_ID}"):
        for entry in Path("/dev/shm").glob(f"baton.{os.getuid()}.{ns}.*"):
            entry.unlink(missing_ok=True)


def run(system: str, args, build_dir: Path) -> list[dict]:
    env = environment(system, build_dir)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "rows.json"
        cmd = [str(PYTHON), str(PINGPONG), "--system", "rclpy", "--mode", "blocking"]
        cmd += ["--sizes", args.sizes, "--json", str(out)]
        if args.quick:
            cmd.append("--quick")
        if args.samples:
            cmd += ["--samples", str(args.samples)]
        try:
            proc = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, timeout=3600)
        finally:
            if "BATON_NAMESPACE" in env:
                remove_segments(env["BATON_NAMESPACE"])
        if proc.returncode != 0:
            raise RuntimeError(f"{system}: pingpong.py exited {proc.returncode}")
        rows = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    for r in rows:
        r["system"] = f"rclpy-{system}"
    return rows


def label(size: int) -> str:
    if size >= 1 << 20:
        return f"{size >> 20} MiB"
    if size >= 1 << 10:
        return f"{size >> 10} KiB"
    return f"{size} B"


def table(rows: list[dict]) -> str:
    by = {(r["system"], r["size"]): r for r in rows}
    lines = [
        "rclpy ping-pong, one-way latency (RTT/2) in µs, median / p99 / max, same run. "
        "Ratio = rmw_baton_cpp median / rmw_fastrtps_cpp median (< 1: baton faster).",
        "",
        "| size | rclpy on rmw_baton_cpp | rclpy on rmw_fastrtps_cpp | ratio "
        "| rmw_baton_cpp, BATON_RMW_WIRE=0 | wire cost (on / off) |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for size in sorted({r["size"] for r in rows}):
        b = by.get(("rclpy-rmw_baton_cpp", size))
        f = by.get(("rclpy-rmw_fastrtps_cpp", size))
        n = by.get(("rclpy-rmw_baton_cpp-nowire", size))

        def cell(r):
            return "—" if r is None else f"{r['median']:.4g} / {r['p99']:.4g} / {r['max']:.4g}"

        ratio = f"{b['median'] / f['median']:.3f}" if b and f else "—"
        wire = f"{b['median'] / n['median']:.3f}" if b and n else "—"
        lines.append(f"| {label(size)} | {cell(b)} | {cell(f)} | {ratio} | {cell(n)} | {wire} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="a tenth of the samples")
    ap.add_argument("--sizes", default="64,64K,4M")
    ap.add_argument("--samples", type=int, default=0, help="samples per size (default: pingpong's)")
    ap.add_argument("--build-dir", default=str(ROOT / "build"))
    args = ap.parse_args()
    build_dir = Path(args.build_dir).resolve()
    lib = build_dir / "src" / "ros2" / "rmw" / "librmw_baton_cpp.so"
    if not PYTHON.exists():
        print("error: .venv-ros missing: run scripts/install-ros-wheels.sh", file=sys.stderr)
        return 1
    if not lib.exists():
        print(
            f"error: {lib} missing: build it (ninja -C {build_dir} rmw_baton_cpp)", file=sys.stderr
        )
        return 1
    OUT.mkdir(parents=True, exist_ok=True)
    rows = []
    for system in ("rmw_baton_cpp", "rmw_baton_cpp-nowire", "rmw_fastrtps_cpp"):
        print(f"== rclpy on {system}", file=sys.stderr, flush=True)
        rows += run(system, args, build_dir)
    out_json = OUT / "ros2_rclpy.json"
    out_json.write_text("".join(json.dumps(r) + "\n" for r in rows))
    text = table(rows)
    (OUT / "ros2_rclpy_table.md").write_text(text)
    print(text)
    print(f"wrote {out_json.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
