#!/usr/bin/env python3
"""Same-run latency ratios on a noisy machine: baton against its floor and the iceoryx peers,
size by size, in interleaved rounds.

bench/run_latency.sh runs each program once, all sizes in a row, so a load change between two
programs (another build starting) moves one column against another. Here every round runs, for
each size in turn, the floor, baton and each peer back to back at that size, so the programs of
one cell run seconds apart; each cell's ratio is taken per round, and the report gives the
median of those ratios with their range (ratio < 1: baton faster). The floor is the futex floor
for blocking and the cache-line floor for busy-poll (size-independent: run at 64 B next to each
size, so each cell has its own).

    bench/latency/rounds.py                                   # 5 rounds, blocking, 5 sizes
    bench/latency/rounds.py --modes busy-poll --samples 10000 --sizes 64,64M
    bench/latency/rounds.py --baton /tmp/other/baton-bench-latency   # A/B another build

Writes every run's row (round added) to out/bench/latency_rounds.json and prints one markdown
table per mode. A program that fails is reported with its message; the others go on.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from report import label  # noqa: E402  (bench/report.py: the size labels of the latency tables)

FLOORS = {"blocking": "floors/baton-floor-futex", "busy-poll": "floors/baton-floor-cacheline"}
ICEORYX2 = ROOT / "bench/peers/iceoryx2_pingpong/target/release/baton-peer-iceoryx2"


def parse_size(text: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20}
    text = text.strip()
    if text[-1:].upper() in units:
        return int(text[:-1]) * units[text[-1].upper()]
    return int(text)


def programs(args: argparse.Namespace, mode: str) -> list[tuple[str, Path]]:
    build = Path(args.build_dir)
    progs = [("floor", build / "bench" / FLOORS[mode])]
    progs.append(
        ("baton", Path(args.baton) if args.baton else build / "bench/latency/baton-bench-latency")
    )
    for peer in args.peers.split(","):
        if peer == "iceoryx":
            progs.append((peer, build / "bench/peers/baton-peer-iceoryx"))
        elif peer == "iceoryx2":
            progs.append((peer, ICEORYX2))
        elif peer:
            sys.exit(f"error: unknown peer '{peer}' (iceoryx, iceoryx2)")
    return progs


def run_one(path: Path, mode: str, size: int, samples: int, cpus: str) -> dict | str:
    """One program at one size; its JSON row, or the reason it failed."""
    if not os.access(path, os.X_OK):
        return f"not built ({path} missing)"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "row.json"
        argv = [str(path), "--modes", mode, "--sizes", str(size), "--samples", str(samples)]
        argv += ["--cpus", cpus, "--json", str(out)]
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=600)
        if proc.returncode != 0 or not out.exists():
            last = (proc.stderr.strip().splitlines() or ["no message"])[-1]
            return f"exit {proc.returncode}: {last}"
        return json.loads(out.read_text().splitlines()[-1])


def ratio_cell(mine: dict[int, float], other: dict[int, float]) -> str:
    ratios = [mine[r] / other[r] for r in mine if r in other and other[r] > 0]
    if not ratios:
        return "—"
    return f"{statistics.median(ratios):.2f} ({min(ratios):.2f}–{max(ratios):.2f})"


def report(mode: str, sizes: list[int], names: list[str], medians: dict) -> str:
    peers = [n for n in names if n not in ("floor", "baton")]
    head = ["size"] + names + [f"baton ÷ {n}" for n in ["floor"] + peers]
    lines = [
        f"### {mode}: one-way µs, median of the round medians; ratios: median (range) per round",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    for size in sizes:
        row = [label(size)]
        for n in names:
            v = medians.get((n, size), {})
            row.append(f"{statistics.median(v.values()):.3g}" if v else "failed")
        mine = medians.get(("baton", size), {})
        for n in ["floor"] + peers:
            row.append(ratio_cell(mine, medians.get((n, size), {})))
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--modes", default="blocking", help="blocking,busy-poll")
    ap.add_argument("--sizes", default="64,4M,16M,24M,64M")
    ap.add_argument("--samples", type=int, default=3000, help="per program, size and round")
    ap.add_argument("--peers", default="iceoryx,iceoryx2", help="iceoryx,iceoryx2 ('' = none)")
    ap.add_argument("--cpus", default="0,1")
    ap.add_argument("--baton", help="baton-bench-latency to run (default: the build's)")
    ap.add_argument("--build-dir", default=os.environ.get("BATON_BUILD_DIR", str(ROOT / "build")))
    ap.add_argument("--json", default=str(ROOT / "out/bench/latency_rounds.json"))
    args = ap.parse_args()
    if args.rounds < 1 or args.samples < 1:
        sys.exit("error: --rounds and --samples must be at least 1")
    sizes = [parse_size(s) for s in args.sizes.split(",") if s]
    modes = [m for m in args.modes.split(",") if m]
    for mode in modes:
        if mode not in FLOORS:
            sys.exit(f"error: unknown mode '{mode}' (blocking, busy-poll)")
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    failures = []
    with open(args.json, "w") as sink:
        for mode in modes:
            progs = programs(args, mode)
            medians: dict = {}
            for rnd in range(1, args.rounds + 1):
                for size in sizes:
                    for name, path in progs:
                        at = 64 if name == "floor" else size  # the floors are size-independent
                        row = run_one(path, mode, at, args.samples, args.cpus)
                        if isinstance(row, str):
                            failures.append(f"{name} {mode} {label(size)} round {rnd}: {row}")
                            continue
                        medians.setdefault((name, size), {})[rnd] = row["median"]
                        sink.write(
                            json.dumps(dict(row, round=rnd, cell_size=size, name=name)) + "\n"
                        )
                print(f"# {mode}: round {rnd} of {args.rounds} done", file=sys.stderr)
            print(report(mode, sizes, [n for n, _ in progs], medians))
            print()
    for f in failures:
        print(f"failed: {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
