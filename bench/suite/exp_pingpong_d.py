"""Seed 003 scenario D (ping-pong with rates, sizes and pairs): the first node of a pair sends
at a given rate without waiting for answers, unless more than `watermark` (50) of its messages
are unanswered — then that tick sends nothing ("no message will be sent"); the other node
answers every message with one of the same size. (1) one pair at 20 ... 1000 Hz, sizes 128 B ->
2 MiB in 256 KiB steps; (2) 1, 2, 3 concurrent pairs at 400 Hz, 512 KiB steps. Measured: the
round trip of every message at the first node (µs), per size, and the ticks skipped at the
watermark. Plotted like the paper's Figs. 13-17: delay against message number."""

from __future__ import annotations

from pathlib import Path

from .common import Context, Result, Task, figure_cell, human_size, md_table
from .plots import colour, figure
from .stream import SYSTEMS, Role, by_size, eta, run_roles

NAME = "pingpong_d"
SEED003 = (
    "seed 003 (other hardware): Isaac's pairs stay within ~10 ms and alike, Apollo's reach "
    "~200 ms and grow ~200 ms per added pair; ROS 2 was not run"
)


def _one(ctx: Context, system: str, rate: float, pairs: int, sub: dict, label: str):
    p = ctx.params[NAME]
    roles = []
    for k in range(pairs):
        roles += [
            Role(f"echo{k}", "relay", {"in": f"ping{k}", "out": f"pong{k}"}),
            Role(f"ping{k}", "pinger", {"in": f"pong{k}", "out": f"ping{k}"}),
        ]
    common = {
        "sizes": ",".join(str(z) for z in sub["sizes"]),
        "per_size": sub["per_size"],
        "rate": rate,
        "watermark": p["watermark"],
        "depth": p["depth"],
        "wait_ready": pairs,
        "subscribers": 1,
    }
    logs = run_roles(ctx, system, "blocking", roles, common, p["timeout_s"])
    out = []
    for k in range(pairs):
        sends, answers = logs.sends[f"ping{k}"], logs.recvs[f"ping{k}"]
        skipped = logs.stats[f"ping{k}"]["skipped"]
        for size, first, sent, rtt in by_size(sends, answers, sub["sizes"], sub["per_size"]):
            extra = {
                "rate_hz": rate,
                "pairs": pairs,
                "pair": k,
                "subtest": label,
                "sent": sent,
                "answered": len(rtt),
                "skipped_ticks_run": skipped,
                "first_seq": first,
                "delivery": SYSTEMS[system],
            }
            config = f"{label}: {pairs} pair(s) at {rate:g} Hz, pair {k}"
            out.append(Result(NAME, system, config, size, rtt, "us", extra))
    return out


def _plan(p: dict) -> list[tuple[str, float, int, dict]]:
    one, many = p["one_pair"], p["pairs"]
    return [("rates", r, 1, one) for r in one["rates"]] + [
        ("pairs", many["rate"], n, many) for n in many["counts"]
    ]


def tasks(ctx: Context) -> list[Task]:
    p = ctx.params[NAME]
    out = []
    for system in p["systems"]:
        for label, rate, pairs, sub in _plan(p):
            n = sub["per_size"] * len(sub["sizes"])
            out.append(
                Task(
                    NAME,
                    f"scenario D {system} {pairs}x {rate:g} Hz",
                    lambda c, s=system, r=rate, k=pairs, b=sub, lb=label: _one(c, s, r, k, b, lb),
                    weight=eta(system, 2 * n * pairs, processes=2 * pairs, paced_s=n / rate),
                )
            )
    return out


def report(ctx: Context, summaries: list[dict], plots: Path) -> tuple[str, str]:
    p = ctx.params[NAME]
    res = [r for r in ctx.results if r.experiment == NAME]
    sizes = sorted(set(p["one_pair"]["sizes"]) | set(p["pairs"]["sizes"]))
    rows, short = [], []
    for label, rate, pairs, _ in _plan(p):
        for system in p["systems"]:
            for k in range(pairs):
                mine = {
                    r.size: r
                    for r in res
                    if r.system == system
                    and r.extra["subtest"] == label
                    and r.extra["rate_hz"] == rate
                    and r.extra["pairs"] == pairs
                    and r.extra["pair"] == k
                }
                if not mine:
                    continue
                cells = [figure_cell(mine[z].values) if z in mine else "-" for z in sizes]
                every = [v for r in mine.values() for v in r.values]
                lost = sum(r.extra["sent"] - r.extra["answered"] for r in mine.values())
                skipped = next(iter(mine.values())).extra["skipped_ticks_run"]
                rows.append(
                    [
                        system,
                        f"{pairs}",
                        f"{rate:g}",
                        k,
                        *cells,
                        figure_cell(every, "p99"),
                        figure_cell(every, "max"),
                        skipped,
                        lost,
                    ]
                )
                if k == 0 and (label, rate) == ("rates", max(p["one_pair"]["rates"])):
                    short.append(
                        f"  {system:<15} 1 pair {rate:g} Hz  RTT median {figure_cell(every):>9}"
                        f" µs  max {figure_cell(every, 'max'):>9}  skipped {skipped}"
                    )
    md = [
        "## Seed 003 scenario D: ping-pong with rates, sizes and pairs (watermark "
        f"{p['watermark']})",
        "",
        f"(1) one pair at {', '.join(f'{r:g}' for r in p['one_pair']['rates'])} Hz, sizes "
        f"{', '.join(human_size(z) for z in p['one_pair']['sizes'])}, "
        f"{p['one_pair']['per_size']} messages each; (2) "
        f"{', '.join(str(n) for n in p['pairs']['counts'])} concurrent pairs at "
        f"{p['pairs']['rate']:g} Hz, sizes {', '.join(human_size(z) for z in p['pairs']['sizes'])}"
        f", {p['pairs']['per_size']} each. Cells: round-trip median per size (µs, at the first "
        f"node), then p99 / max over the run, ticks skipped at the watermark, unanswered "
        f"messages. Blocking waits, processes not pinned. {SEED003}.",
        "",
        md_table(
            ["system", "pairs", "Hz", "pair"]
            + [human_size(z) for z in sizes]
            + ["p99", "max", "skipped", "lost"],
            rows,
        )
        if rows
        else "no system ran",
        "",
    ]
    top_rate, top_pairs = max(p["one_pair"]["rates"]), max(p["pairs"]["counts"])

    def draw(axes):
        for ax, (label, rate, pairs) in zip(
            axes, [("rates", top_rate, 1), ("pairs", p["pairs"]["rate"], top_pairs)]
        ):
            for system in p["systems"]:
                for k in range(pairs):
                    mine = sorted(
                        (
                            r
                            for r in res
                            if r.system == system
                            and r.extra["subtest"] == label
                            and r.extra["rate_hz"] == rate
                            and r.extra["pair"] == k
                        ),
                        key=lambda r: r.extra["first_seq"],
                    )
                    xs = [r.extra["first_seq"] + i for r in mine for i in range(len(r.values))]
                    ys = [v for r in mine for v in r.values]
                    if ys:
                        ax.plot(
                            xs,
                            ys,
                            lw=0.7,
                            color=colour(system),
                            ls=["-", "--", ":"][k % 3],
                            label=system if k == 0 else None,
                        )
            ax.set_yscale("log")
            ax.set_xlabel("message number")
            ax.set_ylabel("round trip (µs, log)")
            ax.set_title(f"Scenario D: {pairs} pair(s) at {rate:g} Hz (pairs: -, --, :)")

    md += figure(plots, "pingpong_d_delay", "scenario D", draw, panels=2)
    return "\n".join(md), "\n".join(short)
