#!/usr/bin/env python3
"""Builds the side-by-side tables from out/bench/*.json (one JSON record per line).

Latency: rows (mode, size); columns: each system's median / p99 in µs, then baton's ratio to
each peer and to the floor (ratio < 1: baton faster). Then the periodic-stream (rate) table and
the throughput table when their JSON exists. Only figures from the same run directory are used.
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
                key = (r["system"], r["mode"], r["size"])
                if r.get("unit") == "GB/s":
                    key = (r["system"], r["mode"] + "#GB/s", r["size"])
                rows[key] = r
    return rows


def fmt(r):
    if r is None:
        return "—"
    return f"{r['median']:.3g} / {r['p99']:.3g}"


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "out/bench"
    rows = load(out)
    failures = pathlib.Path(out, "failures.txt")
    print(
        "One-way latency (RTT/2), median / p99 in µs, same run. Ratio = baton median / peer "
        "median (< 1: baton faster).\n"
    )
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
    rate_table(rows)
    throughput_table(rows)
    if failures.exists() and failures.read_text().strip():
        print("Failed or missing in this run:\n")
        for line in failures.read_text().splitlines():
            print(f"- {line}")


def rate_table(rows):
    rate = {k: v for k, v in rows.items() if k[0] == "baton" and "Hz" in k[1]}
    idle = {k: v for k, v in rows.items() if k[0] == "baton" and k[1].startswith("idle-")}
    if not rate and not idle:
        return
    print("### Periodic stream: latency (send stamp to receipt) and subscriber CPU\n")
    print("| mode | median µs | p99 µs | max µs | subscriber CPU % |")
    print("|---|---|---|---|---|")
    for (system, mode, size), r in sorted(rate.items()):
        if mode.endswith("-cpu"):
            continue
        cpu = rows.get((system, mode + "-cpu", size))
        cpu_text = f"{cpu['median']:.1f}" if cpu else "—"
        print(f"| {mode} | {r['median']:.3g} | {r['p99']:.3g} | {r['max']:.3g} | {cpu_text} |")
    for (_system, mode, _size), r in sorted(idle.items()):
        print(f"| {mode.replace('-cpu', '')} (no messages) | — | — | — | {r['median']:.2f} |")
    print()


def throughput_table(rows):
    tp = {k: v for k, v in rows.items() if k[0] == "baton" and k[1].startswith("throughput-")}
    if not tp:
        return
    print("### Throughput: one publisher to N subscriber processes (reliable, keep-last 64)\n")
    print("| subscribers | size | messages/s (each subscriber) | delivered GB/s |")
    print("|---|---|---|---|")
    seen = set()

    def order(kv):
        (_, mode, size), _ = kv
        n = mode.removeprefix("throughput-").split("sub")[0]
        return (size, int(n) if n.isdigit() else 0)

    for (system, mode, size), r in sorted(tp.items(), key=order):
        if (mode, size) in seen or mode.endswith("#GB/s"):
            continue
        seen.add((mode, size))
        n = mode.removeprefix("throughput-").removesuffix("sub")
        gb = rows.get((system, mode + "#GB/s", size))
        print(
            f"| {n} | {label(size)} | {r['median']:.0f} | {gb['median']:.2f} |"
            if gb
            else f"| {n} | {label(size)} | {r['median']:.0f} | — |"
        )
    print()


if __name__ == "__main__":
    main()
