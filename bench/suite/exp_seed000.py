"""Seed 000 Tables 2-5, two-node rows: a CPU node and an OpenCL (PoCL) GPU-wrapper node running
the cache benchmark, over ROS-SC topic / service (CycloneDDS), ROS-ZC (intra-process unique
ownership), ROS-SHM-ZC (DDS sync + shared-memory buffer) and baton's shared-memory topics, under
the SC / UM / ZC device models; overhead against the native (no middleware) reference.
Program: build/bench/seed000/baton-bench-seed000."""

from __future__ import annotations

import json
from pathlib import Path

from .common import Context, ExperimentFailed, Result, Task, md_table, read_floats, run
from .data.seed000_paper import PAPER, REFERENCE

NAME = "seed000"
TRANSPORT_ROW = {  # ours -> (ROS type, ROS copy) as the paper's tables name them
    "native": ("-", "native (no ROS)"),
    "ros-sc-topic": ("Topic", "ROS-SC"),
    "ros-sc-service": ("Service", "ROS-SC"),
    "ros-zc": ("Topic", "ROS-ZC"),
    "ros-shm-zc": ("Topic", "ROS-SHM-ZC"),
    "baton": ("Topic", "baton shm"),
}


def _one(ctx: Context, transport: str, model: str, p: dict) -> list[Result]:
    exe = ctx.build / "bench/seed000/baton-bench-seed000"
    raw = ctx.raw_tmp() / "runs.csv"
    js = raw.with_suffix(".json")
    run(
        [
            str(exe),
            "--transport",
            transport,
            "--model",
            model,
            "--runs",
            str(p["runs"]),
            "--raw",
            str(raw),
            "--json",
            str(js),
            "--domain",
            str(80 + ctx.seed % 10),
        ],
        timeout=p["timeout_s"],
    )
    if not raw.exists():
        raise ExperimentFailed("no samples written")
    line = json.loads(js.read_text().splitlines()[-1])
    return [
        Result(
            NAME,
            transport,
            f"2 nodes cache {model}",
            int(line["size"]),
            read_floats(raw),
            "ms",
            {"model": model, "nodes": 2, "benchmark": "cache"},
        )
    ]


def tasks(ctx: Context) -> list[Task]:
    p = ctx.params[NAME]
    out = []
    for model in p["models"]:
        for t in p["transports"]:
            out.append(
                Task(
                    NAME,
                    f"seed000 {t} {model}",
                    lambda c, t=t, m=model: _one(c, t, m, p),
                    weight=2.0 + 0.15 * p["runs"],
                )
            )
    return out


def _paper_key(transport: str, model: str):
    ros_type, ros_copy = TRANSPORT_ROW[transport]
    return ("2 nodes", "CUDA-SC" if model in ("SC", "UM") else "CUDA-ZC", ros_type, ros_copy)


def report(ctx: Context, summaries: list[dict], plots: Path) -> tuple[str, str]:
    """Returns (markdown section, short summary table for the console)."""
    if not summaries:
        return "## Seed 000 Tables 2-5 (two nodes)\n\nnot run (no results)\n", ""
    by = {(s["system"], s["model"]): s for s in summaries}
    rows, short = [], []
    p = ctx.params[NAME]
    for model in p["models"]:
        native = by.get(("native", model))
        for t in p["transports"]:
            s = by.get((t, model))
            ros_type, ros_copy = TRANSPORT_ROW[t]
            if s is None:
                rows.append(["2 nodes", model, ros_type, ros_copy, "failed", "", "", ""])
                continue
            ov = ""
            if native and t != "native" and native["mean"] > 0:
                ov = f"{100.0 * (s['mean'] / native['mean'] - 1):+.1f}%"
            paper_cells = []
            for dev in ("TX2", "Xavier") if t != "native" else ():
                pr = (
                    PAPER[(dev, "cache")].get(_paper_key(t, model))
                    if model in ("SC", "ZC")
                    else None
                )
                paper_cells.append(f"{pr[0]:,.1f} ± {pr[1]:,.1f} ({pr[2]:+d}%)" if pr else "-")
            if t == "native":  # Table 1's references
                for dev in ("TX2", "Xavier"):
                    ref = REFERENCE.get((dev, "cache", "CUDA-ZC" if model == "ZC" else "CUDA-SC"))
                    cell = f"{ref[0]:,.1f} ± {ref[1]:,.1f} (Table 1)" if ref else "-"
                    paper_cells.append(cell if model != "UM" else "-")
            rows.append(
                [
                    "2 nodes",
                    model,
                    ros_type,
                    ros_copy,
                    f"{s['mean']:.2f} ± {s['sd']:.2f}",
                    ov or ("reference" if t == "native" else ""),
                    *paper_cells,
                ]
            )
            short.append(f"  {model:<3} {t:<15} {s['mean']:9.2f} ± {s['sd']:7.2f} ms  {ov}")
    md = [
        "## Seed 000 Tables 2 / 4 (cache benchmark), two-node rows",
        "",
        "CPU node + OpenCL GPU-wrapper node (PoCL CPU device, host-unified), the cache benchmark "
        "(4 MiB float matrix: two CPU sqrt/div/mul passes into the outgoing message, then the "
        "device's cache_reduce kernel, 4 reps; reply = 1024 row sums). "
        f"{p['runs']} runs per cell (+1 warm-up), mean ± SD in ms; overhead vs the native "
        "single-process reference of the same device model. The paper's Jetson figures "
        "(CUDA-SC / CUDA-ZC; no UM rows) are beside ours for the shape only (different "
        "hardware, CUDA, larger workload). baton has no paper row.",
        "",
        md_table(
            [
                "Arch.",
                "device model",
                "ROS type",
                "ROS copy",
                "ours: time (ms)",
                "ours: overhead",
                "paper TX2 (ms, overhead)",
                "paper Xavier (ms, overhead)",
            ],
            rows,
        ),
        "",
    ]
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(9, 4))
        ts = [t for t in p["transports"]]
        w = 0.8 / max(1, len(p["models"]))
        for i, model in enumerate(p["models"]):
            vals = [by[(t, model)]["mean"] if (t, model) in by else 0 for t in ts]
            errs = [by[(t, model)]["sd"] if (t, model) in by else 0 for t in ts]
            ax.bar([x + i * w for x in range(len(ts))], vals, w, yerr=errs, label=model)
        ax.set_xticks([x + w * (len(p["models"]) - 1) / 2 for x in range(len(ts))])
        ax.set_xticklabels(ts, rotation=15)
        ax.set_ylabel("ms per run (mean ± SD)")
        ax.set_title("Seed 000 cache benchmark, 2 nodes (OpenCL on PoCL)")
        ax.legend(title="device model")
        fig.tight_layout()
        fig.savefig(plots / "seed000_2nodes.png", dpi=110)
        plt.close(fig)
        md += ["![seed000](plots/seed000_2nodes.png)", ""]
    except Exception as e:  # noqa: BLE001 - a plot never fails the suite
        md += [f"(plot failed: {e})", ""]
    return "\n".join(md), "\n".join(short)
