"""Scaling: one publisher, N subscriber processes on one topic (N = 1 ... 256), 64-byte
messages. Two runs per point: (latency) messages at a fixed rate, delay = receipt - send time
at every subscriber; (throughput) messages without pause, each subscriber's rate = messages it
received / (its last receipt - the first send). baton allows 256 subscribers per topic
(topic_layout.hpp MAX_SUBSCRIBERS; until segment layout 5 it was 63); the full suite runs up to
64 (the first count past the old limit), `--suite fanout --only fanout` N = 16, 63 and 256. A
system that cannot take N subscribers is reported as failed with its reason while the others go
on."""

from __future__ import annotations

from pathlib import Path

from .common import Context, Result, Task, md_table, stats
from .plots import colour, figure
from .stream import SYSTEMS, Role, eta, latencies_us, run_roles

NAME = "fanout"


def _roles(n: int) -> list[Role]:
    return [Role(f"recv{k}", "receiver", {"in": "data"}) for k in range(n)] + [
        Role("send", "sender", {"out": "data", "wait_ready": n, "wait_done": n})
    ]


def _latency(ctx: Context, system: str, n: int) -> list[Result]:
    p = ctx.params[NAME]
    lp = p["latency"]
    common = {
        "sizes": p["size"],
        "per_size": lp["count"],
        "rate": lp["rate"],
        "depth": p["depth"],
        "subscribers": n,
    }
    logs = run_roles(ctx, system, "blocking", _roles(n), common, p["timeout_s"])
    sends = logs.sends["send"]
    per_sub = [latencies_us(sends, logs.recvs[f"recv{k}"]) for k in range(n)]
    every = [v for lat in per_sub for v in lat]
    extra = {
        "subscribers": n,
        "phase": "latency",
        "rate_hz": lp["rate"],
        "sent": len(sends),
        "received_min": min(len(v) for v in per_sub),
        "per_subscriber_median_us": [stats(v)["median"] for v in per_sub],
        "delivery": SYSTEMS[system],
    }
    conf = f"{n} subscribers, {lp['rate']} Hz"
    return [Result(NAME, system, conf, p["size"], every, "us", extra)]


def _throughput(ctx: Context, system: str, n: int) -> list[Result]:
    p = ctx.params[NAME]
    common = {
        "sizes": p["size"],
        "per_size": p["throughput"]["count"],
        "depth": p["depth"],
        "subscribers": n,
    }
    logs = run_roles(ctx, system, "blocking", _roles(n), common, p["timeout_s"])
    sends = logs.sends["send"]
    t0 = min(sends.values())
    rates, lost = [], 0
    for k in range(n):
        r = logs.recvs[f"recv{k}"]
        lost += len(sends) - len(r)
        span = (max(t for _, t, _ in r) - t0) / 1e9 if r else 0.0
        rates.append(len(r) / span if span > 0 else 0.0)
    extra = {
        "subscribers": n,
        "phase": "throughput",
        "sent": len(sends),
        "lost": lost,
        "delivery": SYSTEMS[system],
    }
    conf = f"{n} subscribers, without pause"
    return [Result(NAME, system, conf, p["size"], rates, "msg/s", extra)]


def _counts(p: dict, system: str) -> list[int]:
    """The subscriber counts `system` runs: all, or up to its cap in `max_subscribers`."""
    cap = p.get("max_subscribers", {}).get(system)
    return [n for n in p["subscribers"] if cap is None or n <= cap]


def tasks(ctx: Context) -> list[Task]:
    p = ctx.params[NAME]
    lp, tp = p["latency"], p["throughput"]
    out = []
    for system in p["systems"]:
        for n in _counts(p, system):
            out.append(
                Task(
                    NAME,
                    f"fanout {system} {n} subs latency",
                    lambda c, s=system, k=n: _latency(c, s, k),
                    weight=eta(system, lp["count"] * n, n + 1, lp["count"] / lp["rate"]),
                )
            )
            out.append(
                Task(
                    NAME,
                    f"fanout {system} {n} subs throughput",
                    lambda c, s=system, k=n: _throughput(c, s, k),
                    weight=eta(system, tp["count"] * n, n + 1),
                )
            )
    return out


def report(ctx: Context, summaries: list[dict], plots: Path) -> tuple[str, str]:
    p = ctx.params[NAME]
    res = [r for r in ctx.results if r.experiment == NAME]
    cell = {(r.system, r.extra["phase"], r.extra["subscribers"]): r for r in res}
    rows, short = [], []
    for system in p["systems"]:
        for n in _counts(p, system):
            lat, thr = cell.get((system, "latency", n)), cell.get((system, "throughput", n))
            if not lat and not thr:
                continue
            ls = stats(lat.values) if lat else None
            ts = stats(thr.values) if thr else None
            rows.append(
                [
                    system,
                    n,
                    f"{ls['median']:.1f}" if ls else "failed",
                    f"{ls['p99']:.1f}" if ls else "failed",
                    f"{ls['max']:.0f}" if ls else "failed",
                    f"{ts['median']:.0f}" if ts else "failed",
                    f"{ts['median'] * n:.0f}" if ts else "failed",
                    thr.extra["lost"] if thr else "-",
                ]
            )
        top = max((n for n in p["subscribers"] if (system, "latency", n) in cell), default=None)
        if top:
            s = stats(cell[(system, "latency", top)].values)
            short.append(
                f"  {system:<15} {top:>2} subscribers: delay median {s['median']:8.1f} "
                f"µs  p99 {s['p99']:9.1f}"
            )
    lp = p["latency"]
    md = [
        "## Scaling: one publisher, N subscriber processes",
        "",
        f"{p['size']}-byte messages on one topic, one process per subscriber, blocking waits. "
        f"Latency run: {lp['count']} messages at {lp['rate']} Hz, delay = receipt − send (µs) "
        f"over all subscribers. Throughput run: {p['throughput']['count']} messages without "
        "pause; per subscriber: messages / (its last receipt − first send); aggregate = N × "
        "median. baton caps at 63 subscribers per topic (MAX_SUBSCRIBERS: one reference bit "
        "each in a chunk's 64-bit word); a 64th subscription is refused (see Failed).",
        *(
            [
                "Capped: "
                + ", ".join(f"{k} at {v}" for k, v in p["max_subscribers"].items())
                + " subscribers (one Python process each: at 63 on this 2-vCPU machine a single "
                "rclpy run took its whole time limit; the CPU, not the middleware, is measured).",
            ]
            if p.get("max_subscribers")
            else []
        ),
        "",
        md_table(
            [
                "system",
                "N",
                "delay median",
                "delay p99",
                "delay max",
                "msg/s per subscriber (median)",
                "msg/s aggregate",
                "lost",
            ],
            rows,
        )
        if rows
        else "no system ran",
        "",
    ]

    def draw(axes):
        for system in p["systems"]:
            for ax, phase in zip(axes, ("latency", "throughput")):
                pts = [
                    (n, stats(cell[(system, phase, n)].values)["median"])
                    for n in p["subscribers"]
                    if (system, phase, n) in cell
                ]
                if pts:
                    ax.plot(*zip(*pts), marker="o", label=system, color=colour(system))
        for ax, ylabel in zip(axes, ("delay median (µs, log)", "msg/s per subscriber (log)")):
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("subscriber processes")
            ax.set_ylabel(ylabel)
        axes[0].set_title(f"Delay at {lp['rate']} Hz vs subscribers")
        axes[1].set_title("Throughput per subscriber vs subscribers")

    md += figure(plots, "fanout", "subscriber scaling", draw, panels=2)
    return "\n".join(md), "\n".join(short)
