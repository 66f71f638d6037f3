"""Summaries of this folder's round logs: `python3 summarize.py h100/floors.log` (HEAD 8e818a9 and
e6b1669 against iceoryx2 and the cache-line floor, busy-poll one-way) and `python3 summarize.py
h200/bisect.log` (the path cost and busy-poll one-way of e6b1669 and each later commit). Medians
over rounds, ratios taken per round."""

import re
import statistics as st
import sys


def parse(path):
    rounds, cur, var = [], None, None
    for line in open(path):
        if line.startswith("== round"):
            cur = {}
            rounds.append(cur)
            continue
        if m := re.match(r"(?:variant|path-cost) (\S+)", line):
            var = ("pc-" if line.startswith("path-cost") else "") + m.group(1)
            continue
        if m := re.match(r"floor-cacheline\s+busy-poll\s+64 B\s+\d+\s+([\d.]+)", line):
            cur["floor"] = float(m.group(1))
        elif m := re.match(r"(?:baton|iceoryx2)\s+busy-poll\s+(\d+ \w+)\s+\d+\s+([\d.]+)", line):
            cur[(var, m.group(1))] = float(m.group(2))
        elif m := re.match(r"baton path cost.*: ([\d.]+) ns", line):
            cur[(var.removeprefix("pc-"), "pc")] = float(m.group(1))
    return rounds


def spread(xs):
    xs = sorted(xs)
    return f"{st.median(xs):.3f} ({xs[len(xs) // 10]:.2f}-{xs[9 * len(xs) // 10]:.2f})"


def main(path):
    rounds = parse(path)
    cells = {k for k in rounds[0] if isinstance(k, tuple)}  # what every round measures
    variants, keys = sorted({v for v, _ in cells}), sorted({k for _, k in cells})
    rounds = [r for r in rounds if cells <= r.keys()]
    base = "e6b"
    print(f"{len(rounds)} complete rounds; cache-line floor {spread(r['floor'] for r in rounds)}")
    print("median (10th-90th percentile of rounds); ratios per round")
    for k in keys:
        for v in variants:
            if (v, k) not in cells:
                continue
            xs = [r[(v, k)] for r in rounds]
            line = f"{k:7s} {v:9s} {spread(xs)}"
            if v != base:
                rel = [r[(v, k)] / r[(base, k)] for r in rounds]
                line += f"  / {base} {spread(rel)} lower in {sum(x < 1 for x in rel)}"
            if k != "pc" and v != "iceoryx2":
                line += f"  / floor {spread([r[(v, k)] / r['floor'] for r in rounds])}"
                if ("iceoryx2", k) in rounds[0]:
                    rel = [r[(v, k)] / r[("iceoryx2", k)] for r in rounds]
                    line += f"  / iceoryx2 {spread(rel)} <= 0.7 in {sum(x <= 0.7 for x in rel)}"
            print(line)


if __name__ == "__main__":
    main(sys.argv[1])
