"""Seed 003 scenario A (queue processing): one node sends 5000 messages of 50 B and of 60 000 B
to another without any pause, so the queue accumulates; sender pinned to CPU 0, receiver to
CPU 1. Measured as the paper does: the delay of every message (receipt - send time, one-way),
the total time until the last message arrived, and the messages lost. Every system with its
delivery guarantee (bench/suite/stream.py SYSTEMS)."""

from __future__ import annotations

from pathlib import Path

from .common import Context, Result, Task, md_table, stats
from .plots import colour, figure
from .stream import SYSTEMS, Role, eta, latencies_us, run_roles

NAME = "queue_a"
SEED003 = (
    "seed 003 (Figs. 1-3, other hardware): ROS 2's delay grows through the run (it cannot keep "
    "up), Apollo fluctuates, Isaac stays flat and identical for 50 and 60 000 B"
)


def _one(ctx: Context, system: str, size: int) -> list[Result]:
    p = ctx.params[NAME]
    roles = [
        Role("recv", "receiver", {"in": "data"}, cpu=1),
        Role("send", "sender", {"out": "data"}, cpu=0),
    ]
    common = {"sizes": size, "per_size": p["count"], "depth": p["depth"], "subscribers": 1}
    logs = run_roles(ctx, system, "blocking", roles, common, p["timeout_s"])
    sends, recvs = logs.sends["send"], logs.recvs["recv"]
    lat = latencies_us(sends, recvs)
    total_ms = (max(t for _, t, _ in recvs) - min(sends.values())) / 1e6 if recvs else 0.0
    extra = {
        "sent": len(sends),
        "received": len(recvs),
        "lost": len(sends) - len(recvs),
        "total_ms": round(total_ms, 3),
        "msgs_per_s": round(len(recvs) / total_ms * 1e3, 1) if total_ms > 0 else 0.0,
        "delivery": SYSTEMS[system],
    }
    return [Result(NAME, system, f"{size} B x {p['count']} without pause", size, lat, "us", extra)]


def tasks(ctx: Context) -> list[Task]:
    p = ctx.params[NAME]
    return [
        Task(
            NAME,
            f"scenario A {system} {size} B",
            lambda c, s=system, z=size: _one(c, s, z),
            weight=eta(system, p["count"]),
        )
        for system in p["systems"]
        for size in p["sizes"]
    ]


def report(ctx: Context, summaries: list[dict], plots: Path) -> tuple[str, str]:
    p = ctx.params[NAME]
    res = [r for r in ctx.results if r.experiment == NAME]
    rows, short = [], []
    for r in res:
        s, e = stats(r.values), r.extra
        rows.append(
            [
                r.system,
                r.size,
                f"{e['received']}/{e['sent']}",
                e["lost"],
                f"{e['total_ms']:.1f}",
                f"{e['msgs_per_s']:.0f}",
                f"{s['mean']:.1f}",
                f"{s['median']:.1f}",
                f"{s['p99']:.1f}",
                f"{s['max']:.1f}",
            ]
        )
        short.append(
            f"  {r.system:<15} {r.size:>6} B  total {e['total_ms']:9.1f} ms  lost {e['lost']:>4}  "
            f"delay median {s['median']:10.1f} µs  max {s['max']:10.1f}"
        )
    md = [
        "## Seed 003 scenario A: queue processing",
        "",
        f"{p['count']} messages per size sent without pause (sender CPU 0, receiver CPU 1, "
        "blocking waits, not at real-time priority). Delay = receipt − send time of each "
        "message (µs, one-way, CLOCK_MONOTONIC); total = first send → last receipt. Delivery "
        f"settings per system: {'; '.join(f'{k}: {v}' for k, v in SYSTEMS.items())}. {SEED003}.",
        "",
        md_table(
            [
                "system",
                "size B",
                "received",
                "lost",
                "total ms",
                "msg/s",
                "delay mean",
                "delay median",
                "delay p99",
                "delay max",
            ],
            rows,
        )
        if rows
        else "no system ran",
        "",
    ]

    def draw(axes):
        for ax, size in zip(axes, p["sizes"]):
            for r in res:
                if r.size == size:
                    ax.plot(
                        range(len(r.values)),
                        r.values,
                        lw=0.8,
                        label=r.system,
                        color=colour(r.system),
                    )
            ax.set_yscale("log")
            ax.set_xlabel("message number")
            ax.set_ylabel("delay (µs, log)")
            ax.set_title(f"Scenario A: {size} B x {p['count']}, no pause")

    md += figure(plots, "queue_a_delay", "scenario A", draw, panels=len(p["sizes"]))
    return "\n".join(md), "\n".join(short)
