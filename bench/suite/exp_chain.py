"""Seed 004's chain: para_in publishes a two-int32 message (8 bytes) on input_data, add_para
takes it and publishes one computed from it (b += a) on output_data, add takes that; three
processes. Measured: the latency from para_in's publish to add's receipt (µs), paced at a fixed
rate so no queue forms. The paper measured ROS 1 over TCPROS (PC-PC 0.9 ms, PC-ARM 1.0 ms,
PC-FPGA 0.5 ms with hardware TCPROS, Gigabit Ethernet between the nodes); here all three run
on one machine: baton vs roscpp (TCPROS on loopback) vs CycloneDDS (and the other systems in
the full suite)."""

from __future__ import annotations

from pathlib import Path

from .common import Context, Result, Task, md_table, stats
from .plots import cdf, colour, figure
from .stream import SYSTEMS, Role, eta, latencies_us, run_roles

NAME = "chain"
SEED004 = (
    "seed 004 (Gigabit Ethernet between machines, mean of 10): ROS 1 PC-PC 0.9 ms, PC-ARM "
    "1.0 ms, PC-FPGA (hardware TCPROS, MSS 12) 0.5 ms"
)


def _one(ctx: Context, system: str) -> list[Result]:
    p = ctx.params[NAME]
    roles = [
        Role("add", "receiver", {"in": "output_data", "relays": 1}),
        Role("add_para", "relay", {"in": "input_data", "out": "output_data"}),
        Role("para_in", "sender", {"out": "input_data"}),
    ]
    common = {"sizes": 8, "per_size": p["count"], "rate": p["rate"], "depth": 10, "subscribers": 1}
    logs = run_roles(ctx, system, "blocking", roles, common, p["timeout_s"])
    sends, recvs = logs.sends["para_in"], logs.recvs["add"]
    extra = {
        "sent": len(sends),
        "received": len(recvs),
        "lost": len(sends) - len(recvs),
        "rate_hz": p["rate"],
        "delivery": SYSTEMS[system],
    }
    conf = "para_in -> add_para -> add, 2 x int32"
    return [Result(NAME, system, conf, 8, latencies_us(sends, recvs), "us", extra)]


def tasks(ctx: Context) -> list[Task]:
    p = ctx.params[NAME]
    return [
        Task(
            NAME,
            f"seed 004 chain {system}",
            lambda c, s=system: _one(c, s),
            weight=eta(system, 2 * p["count"], processes=3, paced_s=p["count"] / p["rate"]),
        )
        for system in p["systems"]
    ]


def report(ctx: Context, summaries: list[dict], plots: Path) -> tuple[str, str]:
    p = ctx.params[NAME]
    res = [r for r in ctx.results if r.experiment == NAME]
    rows, short = [], []
    for r in res:
        s = stats(r.values)
        rows.append(
            [
                r.system,
                f"{r.extra['received']}/{r.extra['sent']}",
                f"{s['mean']:.1f}",
                f"{s['median']:.1f}",
                f"{s['sd']:.1f}",
                f"{s['p99']:.1f}",
                f"{s['max']:.1f}",
            ]
        )
        short.append(
            f"  {r.system:<15} publish -> receipt over 2 hops: median {s['median']:8.1f}"
            f" µs  mean {s['mean']:8.1f}  p99 {s['p99']:8.1f}"
        )
    md = [
        "## Seed 004: the three-node chain para_in → add_para → add",
        "",
        f"{p['count']} messages of two int32 at {p['rate']} Hz, three processes, blocking "
        f"waits; latency = add's receipt − para_in's publish (µs, two hops). {SEED004}.",
        "",
        md_table(["system", "received", "mean", "median", "sd", "p99", "max"], rows)
        if rows
        else "no system ran",
        "",
    ]

    def draw(axes):
        for r in res:
            cdf(axes[0], r.values, label=r.system, color=colour(r.system))
        axes[0].set_xscale("log")
        axes[0].set_xlabel("para_in publish -> add receipt (µs, log)")
        axes[0].set_ylabel("CDF")
        axes[0].set_title("Seed 004 chain, 2 x int32")

    md += figure(plots, "chain_cdf", "seed 004 chain", draw)
    return "\n".join(md), "\n".join(short)
