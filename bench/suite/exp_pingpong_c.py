"""Seed 003 scenario C: ping-pong of 10-byte messages between two processes; latency (one-way
= RTT / 2), RTT, jitter (|l_i - l_(i-1)|) median and max, for baton and every peer."""

from __future__ import annotations

from pathlib import Path

from .common import Context, Task, jitter, md_table, stats
from .pingpong import pingpong

NAME = "pingpong_c"
# Seed 003 Table I (median jitter, µs) and its average latencies, for the shape only.
SEED003 = "seed 003 (other hardware): median jitter ROS 2 79 µs, Apollo 49 µs, Isaac 5.9 µs"


def tasks(ctx: Context) -> list[Task]:
    p = ctx.params[NAME]
    out = []
    for system, mode in p["systems"]:
        slow = system.startswith(("rclpy", "ros1"))
        out.append(
            Task(
                NAME,
                f"scenario C {system} {mode}",
                lambda c, s=system, m=mode: [
                    pingpong(c, NAME, s, m, p["size"], p["round_trips"], p["timeout_s"])
                ],
                weight=(0.0006 if slow else 0.00008) * p["round_trips"] + 2,
            )
        )
    return out


def report(ctx: Context, summaries: list[dict], plots: Path) -> tuple[str, str]:
    p = ctx.params[NAME]
    res = [r for r in ctx.results if r.experiment == NAME]
    rows, short = [], []
    for r in res:
        s, j = stats(r.values), stats(jitter(r.values))
        rows.append(
            [
                r.system,
                r.extra.get("mode", ""),
                s["samples"],
                f"{s['mean']:.2f}",
                f"{s['median']:.2f}",
                f"{s['p99']:.2f}",
                f"{s['max']:.1f}",
                f"{2 * s['median']:.2f}",
                f"{j['median']:.2f}",
                f"{j['max']:.1f}",
            ]
        )
        short.append(
            f"  {r.system:<15} {r.extra.get('mode', ''):<10} latency median {s['median']:9.2f} "
            f"µs  p99 {s['p99']:9.2f}  jitter median {j['median']:8.2f} max {j['max']:9.1f}"
        )
    md = [
        "## Seed 003 scenario C: ping-pong, 10-byte messages",
        "",
        f"{p['round_trips']} round trips per system (+10 % warm-up, discarded), two processes "
        "(CPUs 0 / 1 for the C++ programs). Latency = RTT / 2 in µs; jitter = |l_i − l_(i−1)| "
        f"between consecutive messages. {SEED003}.",
        "",
        md_table(
            [
                "system",
                "mode",
                "samples",
                "latency mean",
                "latency median",
                "latency p99",
                "latency max",
                "RTT median",
                "jitter median",
                "jitter max",
            ],
            rows,
        )
        if rows
        else "no system ran",
        "",
    ]
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(9, 4.5))
        for r in res:
            v = sorted(r.values)
            n = len(v)
            ax.plot(v, [(i + 1) / n for i in range(n)], label=f"{r.system} {r.extra.get('mode')}")
        ax.set_xscale("log")
        ax.set_xlabel("one-way latency (µs, log)")
        ax.set_ylabel("CDF")
        ax.set_title("Scenario C: 10 B ping-pong, all systems")
        ax.legend(fontsize=7)
        ax.grid(True, which="both", alpha=0.3)
        fig.tight_layout()
        fig.savefig(plots / "pingpong_c_cdf.png", dpi=110)
        plt.close(fig)
        md += ["![scenario C](plots/pingpong_c_cdf.png)", ""]
    except Exception as e:  # noqa: BLE001
        md += [f"(plot failed: {e})", ""]
    return "\n".join(md), "\n".join(short)
