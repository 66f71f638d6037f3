"""Seed 000 Tables 2-5: the cache and concurrent benchmarks as ROS-style nodes on this machine's
OpenCL device (PoCL), in the paper's architectures (2 nodes: CPU + GPU-wrapper node; 3 nodes:
scheduler + CPU + GPU node, Figures 11-13; 5 nodes: scheduler + 2 CPU + 2 GPU nodes), under the
SC / UM / ZC device models; overhead against the native (no middleware) reference of the same
benchmark and model, and the ratio to native baton. Rows (TRANSPORT_ROW says what each is):
ROS-SC topic / service as rcl C++ nodes on rmw_fastrtps_cpp and the same program on
rmw_baton_cpp (build/bench/seed000/baton-bench-seed000-rcl); native baton topics, the ROS-ZC
stand-in, ROS-SHM-ZC and raw CycloneDDS (build/bench/seed000/baton-bench-seed000). Each program's
header says what its transports do.

    .venv/bin/python bench/suite/run.py --only seed000
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from .common import Context, ExperimentFailed, Result, Task, md_table, read_floats, run
from .data.seed000_paper import PAPER, REFERENCE
from .exp_rcl_pingpong import rcl_env, require_rcl

NAME = "seed000"
# ours -> (ROS type, what the row is). Only the rcl rows are ROS 2: rcl C++ nodes with C++
# messages, the layer under rclcpp (baton-bench-seed000-rcl). The others are labelled for what
# they are; ros-zc stands in for rclcpp's intra-process path, which the wheels do not ship.
TRANSPORT_ROW = {
    "native": ("-", "native, no middleware (reference)"),
    "rcl-fastrtps-topic": ("Topic", "ROS-SC: rcl C++ on rmw_fastrtps_cpp"),
    "rcl-fastrtps-service": ("Service", "ROS-SC: rcl C++ on rmw_fastrtps_cpp"),
    "rcl-baton-topic": ("Topic", "rcl C++ on rmw_baton_cpp"),
    "rcl-baton-service": ("Service", "rcl C++ on rmw_baton_cpp"),
    "rcl-baton-loan-topic": ("Topic", "rcl C++ on rmw_baton_cpp with loans (fixed-size type)"),
    "cyclonedds-topic": ("Topic", "raw CycloneDDS, no rcl (not ROS)"),
    "cyclonedds-service": ("Service", "raw CycloneDDS request/reply, no rcl (not ROS)"),
    "ros-zc": ("Topic", "ROS-ZC stand-in: baton intra-process unique_ptr (not rclcpp)"),
    "ros-shm-zc": ("Topic", "ROS-SHM-ZC: shm buffer + raw CycloneDDS sync (not rcl)"),
    "baton": ("Topic", "native baton shm topics"),
}
# The paper's row (ROS copy) each of ours is compared with; rows without one show "-".
PAPER_COPY = {
    "rcl-fastrtps-topic": "ROS-SC",
    "rcl-fastrtps-service": "ROS-SC",
    "ros-zc": "ROS-ZC",
    "ros-shm-zc": "ROS-SHM-ZC",
}
# The rcl rows: which RMW (bench/suite/exp_rcl_pingpong.py: rcl_env) runs the program.
RCL_SIDE = {"rcl-fastrtps": "fastdds", "rcl-baton": "baton", "rcl-baton-loan": "baton"}
# Seconds a cell takes here beyond its runs (process start, PoCL, DDS discovery), for the ETA.
_START_S = {"native": 0.4, "cyclonedds-topic": 2.0, "cyclonedds-service": 2.0}
_START_S.update({t: 3.0 for t in TRANSPORT_ROW if t.startswith("rcl-")})
_PAPER_TABLE = {("cache", "TX2"): 2, ("concurrent", "TX2"): 3}
_PAPER_TABLE.update({("cache", "Xavier"): 4, ("concurrent", "Xavier"): 5})


def cells(p: dict) -> list[tuple[str, int, str, str]]:
    """(benchmark, nodes, model, transport) of every cell, native references first (nodes 1)."""
    out, seen = [], set()
    for g in p["groups"]:
        for bench in g["benchmarks"]:
            for model in g["models"]:
                if (bench, model) not in seen:
                    seen.add((bench, model))
                    out.append((bench, 1, model, "native"))
    for g in p["groups"]:
        for bench in g["benchmarks"]:
            for nodes in g["nodes"]:
                for model in g["models"]:
                    for t in g["transports"]:
                        if (bench, nodes, model, t) not in out:
                            out.append((bench, nodes, model, t))
    return out


def _program(ctx: Context, transport: str, p: dict) -> tuple[Path, dict | None]:
    """The program of a transport and its environment (None: the suite's own)."""
    side = RCL_SIDE.get(transport.rsplit("-", 1)[0])
    if side is None:
        return ctx.build / "bench/seed000/baton-bench-seed000", None
    exe = ctx.build / "bench/seed000/baton-bench-seed000-rcl"
    require_rcl(ctx.build, exe, side)
    tag = f"sd000{os.getpid()}{transport.replace('-', '')}"
    return exe, rcl_env(side, p["dds_domain"], tag, ctx.build)


def _one(ctx: Context, bench: str, nodes: int, model: str, transport: str, p: dict) -> list[Result]:
    exe, env = _program(ctx, transport, p)
    raw = ctx.raw_tmp() / "runs.csv"
    js = raw.with_suffix(".json")
    cmd = [str(exe), "--transport", transport, "--bench", bench, "--model", model]
    cmd += ["--nodes", str(max(2, nodes)), "--runs", str(p["runs"]), "--warmup", str(p["warmup"])]
    cmd += ["--raw", str(raw), "--json", str(js), "--domain", str(p["dds_domain"])]
    run(cmd, timeout=p["timeout_s"], env=env)
    if not raw.exists():
        raise ExperimentFailed("no samples written")
    line = json.loads(js.read_text().splitlines()[-1])
    extra = {"model": model, "nodes": nodes, "benchmark": bench}
    return [
        Result(
            NAME, transport, line["configuration"], int(line["size"]), read_floats(raw), "ms", extra
        )
    ]


# Cells compared with native baton within 95 % confidence intervals (issue 22: rcl with loans
# within native baton's CI; issue 20: baton <= ROS-ZC and ROS-SHM-ZC) are measured in turns: the
# ones of one architecture (benchmark, nodes, device model) ROUND_STEPS timed steps each at a
# time, each cell's samples pooled, so that a load change on the shared machine falls on all of
# them alike.
IN_TURNS = ("rcl-baton-loan-topic", "ros-zc", "ros-shm-zc", "baton")
ROUND_STEPS = 10


def _rounds(
    ctx: Context, bench: str, nodes: int, model: str, transports: list[str], p: dict
) -> list[Result]:
    """The `transports` cells of one architecture in alternating rounds, samples pooled per cell."""
    rounds = max(1, p["runs"] // ROUND_STEPS)
    each = dict(p, runs=-(-p["runs"] // rounds))  # ceil: at least `runs` steps per cell
    pooled: dict[str, Result] = {}
    for _ in range(rounds):
        for t in transports:
            r = _one(ctx, bench, nodes, model, t, each)[0]
            if t in pooled:
                pooled[t].values.extend(r.values)
            else:
                pooled[t] = r
    return list(pooled.values())


def _turn_groups(all_cells: list[tuple[str, int, str, str]], runs: int) -> dict:
    """(benchmark, nodes, model) -> the IN_TURNS transports measured there in turns: where native
    baton and at least one other of them are, and there are steps for two rounds."""
    if runs < 2 * ROUND_STEPS:
        return {}  # too few steps for turns (the quick suite): one run per cell
    by_arch: dict[tuple[str, int, str], list[str]] = {}
    for b, n, m, t in all_cells:
        if t in IN_TURNS:
            by_arch.setdefault((b, n, m), []).append(t)
    return {a: ts for a, ts in by_arch.items() if "baton" in ts and len(ts) > 1}


def tasks(ctx: Context) -> list[Task]:
    p = ctx.params[NAME]
    out = []
    all_cells = cells(p)
    turns = _turn_groups(all_cells, p["runs"])
    for bench, nodes, model, t in all_cells:
        group = turns.get((bench, nodes, model), [])
        if t in group:
            if t == group[0]:
                out.append(
                    Task(
                        NAME,
                        f"seed000 {bench} {nodes}n {model} {' / '.join(group)} in turns",
                        lambda c, b=bench, n=nodes, m=model, g=group: _rounds(c, b, n, m, g, p),
                        weight=len(group) * (3.0 + 0.3 * (p["runs"] + p["warmup"])),
                    )
                )
            continue
        where = "native" if t == "native" else f"{nodes}n"
        per_run = 0.03 if bench == "concurrent" else 0.01
        if t.startswith(("cyclonedds", "rcl-")):
            per_run *= 10
        out.append(
            Task(
                NAME,
                f"seed000 {bench} {where} {t} {model}",
                lambda c, b=bench, n=nodes, m=model, t=t: _one(c, b, n, m, t, p),
                weight=_START_S.get(t, 0.6) + per_run * (p["runs"] + p["warmup"]),
            )
        )
    return out


# Student's t at 0.975 for 1..30 degrees of freedom (beyond: the normal 1.96).
_T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179]
_T975 += [2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064]
_T975 += [2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def ci95(s: dict) -> tuple[float, float]:
    """The 95 % confidence interval of a cell's mean step time (Student's t)."""
    n = s["samples"]
    t = _T975[n - 2] if 2 <= n <= len(_T975) + 1 else 1.96
    half = t * s["sd"] / n**0.5 if n > 1 else 0.0
    return s["mean"] - half, s["mean"] + half


def _t975(df: float) -> float:
    return _T975[int(df) - 1] if 1 <= df < len(_T975) + 1 else 1.96


def baton_minus(s: dict, nb: dict) -> tuple[float, float, float]:
    """Native baton's mean minus row `s`'s, with the 95 % CI of that difference (Welch: the two
    cells' variances need not be equal), in ms."""
    va, vb = nb["sd"] ** 2 / nb["samples"], s["sd"] ** 2 / s["samples"]
    d = nb["mean"] - s["mean"]
    if va + vb == 0:
        return d, d, d
    df = (va + vb) ** 2 / (va**2 / max(1, nb["samples"] - 1) + vb**2 / max(1, s["samples"] - 1))
    half = _t975(df) * (va + vb) ** 0.5
    return d, d - half, d + half


# The zero-copy rows baton is held against (issue 20: baton <= each in every zero-copy cell,
# within the interval).
ZC_PEERS = ("ros-zc", "ros-shm-zc")


def baton_vs_peer(s: dict, nb: dict | None) -> str:
    """Whether native baton is at most zero-copy row `s` in one cell: "lower" (the difference's
    CI is below 0), "not separable" (it holds 0: equal within the interval) or "higher"."""
    if nb is None or nb["samples"] < 2 or s["samples"] < 2:
        return "-"
    d, lo, hi = baton_minus(s, nb)
    verdict = "lower" if hi < 0 else "higher" if lo > 0 else "not separable"
    return f"{verdict}: {d:+.2f} [{lo:+.2f}, {hi:+.2f}]"


def within_baton_ci(s: dict, nb: dict | None) -> str:
    """An rcl-on-baton row against native baton's 95 % CI of the same cell: "yes" / "no"."""
    if nb is None:
        return "-"
    lo, hi = ci95(nb)
    return f"{'yes' if lo <= s['mean'] <= hi else 'no'} [{lo:.2f}, {hi:.2f}]"


def _paper_key(nodes: int, transport: str, model: str):
    ros_type = TRANSPORT_ROW[transport][0]
    copy = PAPER_COPY.get(transport)
    return (f"{nodes} nodes", "CUDA-ZC" if model == "ZC" else "CUDA-SC", ros_type, copy)


def _paper_cell(dev: str, bench: str, nodes: int, transport: str, model: str) -> str:
    if transport == "native":
        if model == "UM":
            return "-"
        ref = REFERENCE.get((dev, bench, "CUDA-ZC" if model == "ZC" else "CUDA-SC"))
        return f"{ref[0]:,.1f} ± {ref[1]:,.1f} (Table 1)" if ref else "-"
    if model == "UM" or transport not in PAPER_COPY:  # no UM rows in the paper (UM ~ SC, ±8 %)
        return "-"
    pr = PAPER[(dev, bench)].get(_paper_key(nodes, transport, model))
    return f"{pr[0]:,.1f} ± {pr[1]:,.1f} ({pr[2]:+d}%)" if pr else "-"


def _table(ctx: Context, bench: str, by: dict) -> tuple[list[list], list[str]]:
    p = ctx.params[NAME]
    rows, short = [], []
    for b, nodes, model, t in cells(p):
        if b != bench:
            continue
        s = by.get((bench, nodes, model, t))
        ros_type, ros_copy = TRANSPORT_ROW[t]
        arch = "native" if t == "native" else f"{nodes} nodes"
        if s is None:
            rows.append([arch, model, ros_type, ros_copy, "failed", "", "", "-", "-", "-", "-"])
            continue
        native = by.get((bench, 1, model, "native"))
        ov = ""
        if native and t != "native" and native["mean"] > 0:
            ov = f"{100.0 * (s['mean'] / native['mean'] - 1):+.1f}%"
        # Against native baton of the same architecture and device model: the rcl rows' cost.
        nb = by.get((bench, nodes, model, "baton"))
        vs_baton = "-" if t == "native" else "1 (reference)" if t == "baton" else ""
        if not vs_baton and nb and nb["mean"] > 0:
            vs_baton = f"{s['mean'] / nb['mean']:.2f}×"
        paper = [_paper_cell(dev, bench, nodes, t, model) for dev in ("TX2", "Xavier")]
        ours = f"{s['mean']:.2f} ± {s['sd']:.2f}"
        in_ci = within_baton_ci(s, nb) if t.startswith("rcl-baton") else "-"
        if t == "baton":
            lo, hi = ci95(s)
            in_ci = f"[{lo:.2f}, {hi:.2f}]"
        vs_peer = baton_vs_peer(s, nb) if t in ZC_PEERS else "-"
        row = [arch, model, ros_type, ros_copy, ours, ov or "reference", vs_baton, in_ci, vs_peer]
        rows.append(row + paper)
        if nodes <= 2:  # the console summary: the two-node rows (the report has them all)
            short.append(f"  {bench[:4]} {arch:<7} {model:<3} {t:<20} {ours:>17} ms  {ov}")
    return rows, short


def _plot(ctx: Context, bench: str, by: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    p = ctx.params[NAME]
    groups = []  # (nodes, transport) in cell order
    models = []
    for b, nodes, model, t in cells(p):
        if b == bench and t != "native" and (nodes, t) not in groups:
            groups.append((nodes, t))
        if b == bench and model not in models:
            models.append(model)
    fig, ax = plt.subplots(figsize=(max(8, 0.7 * len(groups) + 2), 4.2))
    w = 0.8 / max(1, len(models))
    for i, model in enumerate(models):
        xs, vals, errs = [], [], []
        for x, (nodes, t) in enumerate(groups):
            s = by.get((bench, nodes, model, t))
            if s:
                xs.append(x + i * w)
                vals.append(s["mean"])
                errs.append(s["sd"])
        ax.bar(xs, vals, w, yerr=errs, label=model)
        native = by.get((bench, 1, model, "native"))
        if native:
            ax.axhline(native["mean"], color=f"C{i}", ls="--", lw=0.8)
    ax.set_xticks([x + w * (len(models) - 1) / 2 for x in range(len(groups))])
    ax.set_xticklabels([f"{n}n {t}" for n, t in groups], rotation=35, ha="right", fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("ms per step (mean ± SD, log)")
    ax.set_title(f"Seed 000 {bench} benchmark (OpenCL on PoCL); dashed: native reference")
    ax.legend(title="device model")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def report(ctx: Context, summaries: list[dict], plots: Path) -> tuple[str, str]:
    """Returns (markdown section, short summary table for the console)."""
    if not summaries:
        return "## Seed 000 Tables 2-5\n\nnot run (no results)\n", ""
    # A cell without samples (its run produced no timings) is shown as failed.
    by = {
        (s["benchmark"], s["nodes"], s["model"], s["system"]): s for s in summaries if s["samples"]
    }
    p = ctx.params[NAME]
    md = [
        "## Seed 000 Tables 2-5 (cache and concurrent benchmarks, 2 / 3 / 5 nodes)",
        "",
        "CPU and GPU-wrapper nodes on the OpenCL device (PoCL's CPU device, host-unified memory). "
        "Cache: a 4 MiB float matrix, CPU sqrt/div/mul passes then the device's row reduction "
        "(3 / 5 nodes: pipelined, each node on its share of the rows). Concurrent: 16 MiB of "
        "floats, 8 read+write iterations per element, device half and CPU half at the same time. "
        f"{p['runs']} timed steps per cell after {p['warmup']} warm-up steps, mean ± SD in ms; "
        "overhead vs the native single-process reference of the same benchmark and device model; "
        "÷ native baton: mean over native baton's mean in the same architecture and model.",
        "",
        "What the rows are: **ROS-SC** = rcl C++ nodes (C++ messages, the layer under rclcpp) on "
        "`rmw_fastrtps_cpp`, the paper's ROS-SC; **rcl C++ on rmw_baton_cpp** = the same program "
        "with `rmw_baton_cpp` preloaded (`bench/seed000/rcl_seed000.cpp`). Topics carry "
        "`sensor_msgs/msg/Image` (32FC1), copied in and out as rclcpp without loans; **rcl C++ "
        "on rmw_baton_cpp with loans** borrows, publishes and takes the fixed-size "
        "`baton_bench_msgs/msg/FloatShare` through rcl's loan calls in native baton's data flow "
        "(`bench/seed000/rcl_loaned_topics.hpp`; rcl has no loans for services). The service "
        "rows use two shipped services per worker, "
        "`rcl_interfaces/srv/SetParameters` (the share in) and `GetParameters` (the result out), "
        "because no srv in the ROS 2 wheels carries bytes both ways. Not ROS: **ROS-ZC "
        "stand-in** (baton's intra-process unique_ptr path; rclcpp's intra-process manager is "
        "not in the wheels), **ROS-SHM-ZC** (seed 000's design: a POSIX shm buffer, its sync "
        "messages on raw CycloneDDS), **raw CycloneDDS** rows (writers / readers without "
        "rcl). Native baton: baton's own shared-memory topics (`bench/seed000/baton_seed000.cpp`). "
        "The paper's Jetson figures (CUDA-SC / CUDA-ZC; no UM rows) are beside the rows that "
        "correspond to one, for the shape only (different hardware, CUDA, larger workload).",
        "",
    ]
    short = []
    for bench in ("cache", "concurrent"):
        rows, sh = _table(ctx, bench, by)
        if not rows:
            continue
        short += sh
        tx2, xav = _PAPER_TABLE[(bench, "TX2")], _PAPER_TABLE[(bench, "Xavier")]
        md += [
            f"### {bench} benchmark (paper Tables {tx2} / {xav})",
            "",
            md_table(
                [
                    "Arch.",
                    "device model",
                    "ROS type",
                    "row (what it is)",
                    "ours: time (ms)",
                    "ours: overhead",
                    "÷ native baton",
                    "in native baton's 95 % CI of the mean",
                    "native baton vs this row: baton − row, 95 % CI (ms)",
                    f"paper TX2 (Table {tx2})",
                    f"paper Xavier (Table {xav})",
                ],
                rows,
            ),
            "",
        ]
        try:
            _plot(ctx, bench, by, plots / f"seed000_{bench}.png")
            md += [f"![seed000 {bench}](plots/seed000_{bench}.png)", ""]
        except Exception as e:  # noqa: BLE001 - a plot never fails the suite
            md += [f"(plot failed: {e})", ""]
    tally = _zero_copy_tally(by)
    if tally:
        md += [tally, ""]
        short.append("  " + tally)
    return "\n".join(md), "\n".join(short)


def _zero_copy_tally(by: dict) -> str:
    """One line: in how many cells native baton is at most each zero-copy row within the 95 %
    CI of the difference (lower, or not separable), of the cells where both were measured."""
    parts = []
    for peer in ZC_PEERS:
        verdicts = [
            baton_vs_peer(s, by.get((b, n, m, "baton"))).split(":")[0]
            for (b, n, m, t), s in by.items()
            if t == peer
        ]
        verdicts = [v for v in verdicts if v != "-"]
        if verdicts:
            met = sum(v != "higher" for v in verdicts)
            lower = sum(v == "lower" for v in verdicts)
            row = TRANSPORT_ROW[peer][1].split(":")[0]
            parts.append(f"≤ {row} in {met} of {len(verdicts)} cells ({lower} lower)")
    if not parts:
        return ""
    return "Native baton within the 95 % CI of the difference: " + "; ".join(parts) + "."
