#!/usr/bin/env python3
"""The suite's fan-out latency cells (PARAMS["fanout"]: 64 B at 200 Hz, N subscriber processes,
blocking waits) in interleaved rounds: baton builds and the iceoryx peers back to back at each N,
the order reversed every other round, so a load change on a shared machine moves every program
of a round alike. Each cell's p99 is divided by the lower of the two peers' p99 in the same round;
the report gives the median of those ratios with their range (ratio < 1: below both peers).

    .venv/bin/python bench/suite/fanout_rounds.py          # build/, 3 rounds, N = 16, 63, 256
    .venv/bin/python bench/suite/fanout_rounds.py --baton before=/tmp/old after=build --rounds 4

--baton NAME=DIR: a build directory holding bench/stream/baton-bench-stream (DIR/bench/peers is
where the iceoryx peer is looked for too, so give each DIR a bench/peers, or use build/). Writes
every run's row to out/bench/fanout_rounds.json and prints a markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.suite import exp_fanout, params  # noqa: E402
from bench.suite.common import ROOT, Context, ExperimentFailed, stats  # noqa: E402

PEERS = ("iceoryx2", "iceoryx")


def run_cell(label: str, system: str, build: Path, n: int, p: dict) -> dict:
    ctx = Context("fanout", 1, build, ROOT / "out", {"fanout": p})
    row = {"cell": label, "n": n, "load": round(os.getloadavg()[0], 1)}
    try:
        s = stats(exp_fanout._latency(ctx, system, n)[0].values)
        row.update(median=s["median"], p99=s["p99"], max=s["max"])
    except ExperimentFailed as e:
        row["failed"] = str(e)
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baton", nargs="+", default=["baton=build"], metavar="NAME=DIR")
    ap.add_argument("--n", type=int, nargs="+", default=[16, 63, 256])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", type=Path, default=ROOT / "out/bench/fanout_rounds.json")
    a = ap.parse_args()
    p = params.PARAMS["fanout"]["fanout"]
    cells = [(b.split("=", 1)[0], "baton", Path(b.split("=", 1)[1]).resolve()) for b in a.baton]
    cells += [(s, s, ROOT / "build") for s in PEERS]
    rows = []
    for r in range(a.rounds):
        for n in a.n:
            for label, system, build in cells if r % 2 == 0 else cells[::-1]:
                row = run_cell(label, system, build, n, p) | {"round": r, "t": time.time()}
                print(json.dumps(row), flush=True)
                rows.append(row)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(rows, indent=1))
    print(report(rows, [c[0] for c in cells]))
    return 0


def report(rows: list[dict], labels: list[str]) -> str:
    """Per N and program: median p99 and median delay over the rounds, and for baton builds the
    median (range) of p99 / min(peer p99) per round."""
    out = ["| N | program | p99 per round (µs) | median p99 | median delay | p99 ÷ best peer |"]
    out.append("|---|---|---|---|---|---|")
    ok = [r for r in rows if "p99" in r]
    for n in sorted({r["n"] for r in ok}):
        best = {}
        for r in ok:
            if r["n"] == n and r["cell"] in PEERS:
                best[r["round"]] = min(best.get(r["round"], float("inf")), r["p99"])
        for label in labels:
            mine = [r for r in ok if r["n"] == n and r["cell"] == label]
            if not mine:
                continue
            ratios = [r["p99"] / best[r["round"]] for r in mine if r["round"] in best]
            ratio = (
                f"{statistics.median(ratios):.2f} ({min(ratios):.2f}–{max(ratios):.2f})"
                if ratios and label not in PEERS
                else ""
            )
            per_round = ", ".join(f"{r['p99']:.0f}" for r in mine)
            out.append(
                f"| {n} | {label} | {per_round} | "
                f"{statistics.median(r['p99'] for r in mine):.0f} | "
                f"{statistics.median(r['median'] for r in mine):.0f} | {ratio} |"
            )
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
