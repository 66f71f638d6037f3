#!/usr/bin/env python3
"""Builds the side-by-side latency table from out/bench/*.json (one JSON record per line).

Rows: (mode, size); columns: each system's median / p99 in µs, then baton's ratio to each peer
and to the floors (ratio < 1: baton faster). Only figures from the same run directory are used.
"""
import json
import pathlib
import sys

SIZES = [64, 65536, 4194304, 25165824]
PEERS = ["iceoryx2", "iceoryx", "cyclonedds"]


def label(size):
    if size >= 1 << 20:
        return f"{size >> 20} MiB"
    if size >= 1 << 10:
        return f"{size >> 10} KiB"
    return f"{size} B"


def load(out):
    rows = {}
    for path in sorted(pathlib.Path(out).glob("*.json")):
        for line in path.read_text().splitlines():
            try:
                r = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(r, dict) and "system" in r and "mode" in r:
                rows[(r["system"], r["mode"], r["size"])] = r
    return rows


def fmt(r):
    if r is None:
        return "—"
    return f"{r['median']:.3g} / {r['p99']:.3g}"


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "out/bench"
    rows = load(out)
    failures = pathlib.Path(out, "failures.txt")
    print("One-way latency (RTT/2), median / p99 in µs, same run. Ratio = baton median / peer "
          "median (< 1: baton faster).\n")
    floor_cl = rows.get(("floor-cacheline", "busy-poll", 64))
    floor_fx = rows.get(("floor-futex", "blocking", 64))
    # Peers' mode names: iceoryx classic and iceoryx2 use busy-poll / blocking like baton.
    for mode, floor in (("busy-poll", floor_cl), ("blocking", floor_fx), ("adaptive", floor_cl)):
        systems = ["baton"] + PEERS
        print(f"### {mode}\n")
        header = ["size"] + systems + ["memcpy (1 copy)"]
        header += [f"baton/{p}" for p in PEERS] + ["baton/floor"]
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for size in SIZES:
            baton = rows.get(("baton", mode, size))
            if baton is None:
                continue
            cells = [label(size)]
            peers = {}
            for s in systems:
                r = rows.get((s, mode, size))
                if r is None and mode == "adaptive" and s != "baton":
                    r = None  # peers have no adaptive mode
                peers[s] = r
                cells.append(fmt(r))
            cells.append(fmt(rows.get(("floor-memcpy", "warm", size))))
            for p in PEERS:
                r = peers.get(p)
                cells.append(f"{baton['median'] / r['median']:.2f}" if r and r["median"] else "—")
            cells.append(f"{baton['median'] / floor['median']:.2f}" if floor else "—")
            print("| " + " | ".join(cells) + " |")
        floor_name = "cache-line" if floor is floor_cl else "futex"
        if floor:
            print(f"\nFloor ({floor_name} ping-pong): {fmt(floor)}.")
        print()
    if failures.exists() and failures.read_text().strip():
        print("Failed or missing in this run:\n")
        for line in failures.read_text().splitlines():
            print(f"- {line}")


if __name__ == "__main__":
    main()
