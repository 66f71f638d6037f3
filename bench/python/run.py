"""Runs the Python ping-pong for every system in one session and prints the table.

    bench/python/run.sh [--quick] [--sizes 64,64K,4M]

baton (blocking and busy-poll) and iceoryx2 (busy-poll: its Python API polls) run in the
project venv (.venv, baton from $BATON_PYTHONPATH or build/python); rclpy on rmw_fastrtps_cpp
runs in .venv-ros (scripts/install-ros-wheels.sh) with its own ROS_DOMAIN_ID and
ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST. Results: out/bench/python.json (fresh each run, JSON
lines: system, mode, size, median, p99, max, samples, unit), failures in the table with their
reason, and out/bench/python_table.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "out" / "bench"
SCRIPT = Path(__file__).resolve().parent / "pingpong.py"

RUNS = [
    ("baton", "blocking", ".venv"),
    ("baton", "busy-poll", ".venv"),
    ("iceoryx2", "busy-poll", ".venv"),
    ("rclpy", "blocking", ".venv-ros"),
]


def env_for(system: str) -> dict:
    env = dict(os.environ)
    env["BATON_NAMESPACE"] = f"bench-python-{os.getpid()}"
    if system == "baton":
        pkg = env.get("BATON_PYTHONPATH") or str(
            Path(env.get("BATON_BUILD_DIR", ROOT / "build")) / "python"
        )
        env["PYTHONPATH"] = pkg
    else:
        env.pop("PYTHONPATH", None)
    if system == "rclpy":
        env["ROS_DOMAIN_ID"] = env.get("BATON_BENCH_ROS_DOMAIN_ID", str(60 + os.getpid() % 40))
        env["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    return env


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="a tenth of the samples")
    ap.add_argument("--sizes", default="64,64K,4M")
    ap.add_argument("--systems", default="baton,iceoryx2,rclpy")
    args = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    out_json = OUT / "python.json"
    out_json.unlink(missing_ok=True)
    wanted = set(args.systems.split(","))
    rows, failures = [], []
    for system, mode, venv in RUNS:
        if system not in wanted:
            continue
        python = ROOT / venv / "bin" / "python"
        label = f"python-{system}/{mode}"
        print(f"== {label}", file=sys.stderr, flush=True)
        if not python.exists():
            hint = (
                "scripts/install-ros-wheels.sh"
                if venv == ".venv-ros"
                else "scripts/install-python.sh"
            )
            failures.append((label, f"{venv} missing: run {hint}"))
            continue
        cmd = [
            str(python),
            str(SCRIPT),
            "--system",
            system,
            "--mode",
            mode,
            "--sizes",
            args.sizes,
            "--json",
            str(out_json),
        ] + (["--quick"] if args.quick else [])
        try:
            r = subprocess.run(
                cmd, env=env_for(system), capture_output=True, text=True, timeout=900
            )
        except subprocess.TimeoutExpired:
            failures.append((label, "timed out after 900 s"))
            continue
        got = [json.loads(ln) for ln in r.stdout.splitlines() if ln.startswith("{")]
        rows += got
        if r.returncode != 0:
            err = [ln for ln in r.stderr.splitlines() if ln.strip()]
            failures.append((label, f"failed: {err[-1] if err else 'exit ' + str(r.returncode)}"))
    table = render(rows, failures, args)
    print(table)
    (OUT / "python_table.md").write_text(table + "\n")
    return 0


def render(rows: list, failures: list, args: argparse.Namespace) -> str:
    def fmt_size(n: int) -> str:
        return f"{n >> 20} MiB" if n >= 1 << 20 else (f"{n >> 10} KiB" if n >= 1024 else f"{n} B")

    base = {(r["size"], r["mode"]): r["median"] for r in rows if r["system"] == "python-baton"}
    lines = [
        "Python ping-pong, one-way latency = RTT/2 in us (same run"
        + (", --quick" if args.quick else "")
        + ")",
        "",
        "| size | system | mode | median | p99 | max | samples | median vs baton (same mode) |",
        "| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in sorted(
        rows, key=lambda r: (r["size"], r["system"] != "python-baton", r["system"], r["mode"])
    ):
        b = base.get((r["size"], r["mode"]))
        ratio = f"{r['median'] / b:.2f}x" if b else "-"
        lines.append(
            f"| {fmt_size(r['size'])} | {r['system']} | {r['mode']} | {r['median']:.1f} "
            f"| {r['p99']:.1f} | {r['max']:.1f} | {r['samples']} | {ratio} |"
        )
    for label, reason in failures:
        lines.append(f"| - | {label} | FAILED | {reason} | | | | |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
