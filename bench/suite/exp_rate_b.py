"""Seed 003 scenario B (changing sizes and frequencies): one node sends to another at a given
rate (20 ... 1000 Hz) while the message size steps from 128 B to 2 MiB in 256 KiB increments
every --per-size messages; nodes not pinned. Measured: the delay of every message (receipt -
send time, one-way), per size and rate, and losses. Plotted like the paper's Figs. 4-7: delay
against message number (the size steps along the run), one panel per rate, every system."""

from __future__ import annotations

from pathlib import Path

from .common import Context, Result, Task, figure_cell, human_size, md_table
from .plots import colour, figure
from .stream import SYSTEMS, Role, by_size, eta, run_roles

NAME = "rate_b"
SEED003 = (
    "seed 003 Table II at 1000 Hz (other hardware), delay max/avg ms: ROS 2 128 KB 13.99/1.49, "
    "512 KB 112.38/76.80, 1536 KB 2030/1881; Apollo 3.13/0.24, 3.41/1.65, 2.76/1.81; "
    "Isaac 1.15/0.09, 2.28/1.04, 2.50/1.19"
)


def _one(ctx: Context, system: str, rate: float) -> list[Result]:
    p = ctx.params[NAME]
    roles = [Role("recv", "receiver", {"in": "data"}), Role("send", "sender", {"out": "data"})]
    common = {
        "sizes": ",".join(str(z) for z in p["sizes"]),
        "per_size": p["per_size"],
        "rate": rate,
        "depth": p["depth"],
        "subscribers": 1,
    }
    logs = run_roles(ctx, system, "blocking", roles, common, p["timeout_s"])
    sends, recvs = logs.sends["send"], logs.recvs["recv"]
    out = []
    for size, first, sent, lat in by_size(sends, recvs, p["sizes"], p["per_size"]):
        extra = {
            "rate_hz": rate,
            "sent": sent,
            "received": len(lat),
            "lost": sent - len(lat),
            "first_seq": first,
            "delivery": SYSTEMS[system],
        }
        out.append(Result(NAME, system, f"{rate:g} Hz", size, lat, "us", extra))
    return out


def tasks(ctx: Context) -> list[Task]:
    p = ctx.params[NAME]
    n = p["per_size"] * len(p["sizes"])
    return [
        Task(
            NAME,
            f"scenario B {system} {rate} Hz",
            lambda c, s=system, r=rate: _one(c, s, r),
            weight=eta(system, n, paced_s=n / rate),
        )
        for system in p["systems"]
        for rate in p["rates"]
    ]


def report(ctx: Context, summaries: list[dict], plots: Path) -> tuple[str, str]:
    p = ctx.params[NAME]
    res = [r for r in ctx.results if r.experiment == NAME]
    cell = {(r.system, r.extra["rate_hz"], r.size): r for r in res}
    rows, short = [], []
    for system in p["systems"]:
        for rate in p["rates"]:
            if not any((system, rate, z) in cell for z in p["sizes"]):
                continue
            row = [system, f"{rate:g}"]
            lost = 0
            for z in p["sizes"]:
                r = cell.get((system, rate, z))
                if r is None:
                    row.append("failed")
                    continue
                lost += r.extra["lost"]
                row.append(f"{figure_cell(r.values)} / {figure_cell(r.values, 'max')}")
            rows.append(row + [lost])
        top = [cell.get((system, max(p["rates"]), z)) for z in p["sizes"]]
        if all(top):
            med = " ".join(f"{figure_cell(r.values):>9}" for r in top)
            short.append(f"  {system:<15} {max(p['rates']):g} Hz median µs per size: {med}")
    md = [
        "## Seed 003 scenario B: message sizes and rates",
        "",
        f"Sizes {', '.join(human_size(z) for z in p['sizes'])}, {p['per_size']} messages each, "
        f"in that order, at each rate; one sender and one receiver process, not pinned, blocking "
        f"waits. Cells: delay median / max in µs (receipt − send time, one-way). {SEED003}.",
        "",
        md_table(["system", "Hz"] + [human_size(z) for z in p["sizes"]] + ["lost"], rows)
        if rows
        else "no system ran",
        "",
    ]

    def draw(axes):
        for ax, rate in zip(axes, p["rates"]):
            for system in p["systems"]:
                xs, ys = [], []
                for z in p["sizes"]:
                    r = cell.get((system, rate, z))
                    if r:
                        xs += range(r.extra["first_seq"], r.extra["first_seq"] + len(r.values))
                        ys += r.values
                if ys:
                    ax.plot(xs, ys, lw=0.8, label=system, color=colour(system))
            ax.set_yscale("log")
            ax.set_xlabel(f"message number (size steps every {p['per_size']})")
            ax.set_ylabel("delay (µs, log)")
            ax.set_title(f"Scenario B at {rate:g} Hz")

    md += figure(plots, "rate_b_delay", "scenario B", draw, panels=len(p["rates"]))
    return "\n".join(md), "\n".join(short)
