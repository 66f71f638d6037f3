"""Seed 002: (A) two components each running a bilateral filter on a random 4K image on the
device, end-to-end latency distribution; (B) randomly generated ROS graphs (2-14 nodes, 1-17
edges, critical path 2-5, random message sizes, random CPU or device work; seeded), latency
normalised to iceoryx as the paper's Figure 6. Systems: native baton (memory-domain endpoints on
the device), raw CycloneDDS (no rcl) and iceoryx classic (RouDi; started here if none runs), and
for the bilateral pair also rcl C++ nodes (the layer under rclcpp) on rmw_fastrtps_cpp and on
rmw_baton_cpp. One process per node: build/bench/seed002/baton-bench-graph, and
baton-bench-graph-rcl for the rcl rows (see its header for what is timed; rcl_link.cpp).

    .venv/bin/python bench/suite/run.py --only seed002
"""

from __future__ import annotations

import atexit
import random
import shutil
import subprocess
from pathlib import Path

from .common import ROOT, Context, ExperimentFailed, Result, Task, md_table, read_floats, run
from .exp_rcl_pingpong import rcl_env, require_rcl
from .stream import _roudi_running, _stop, _wait_until

NAME = "seed002"
SYSTEMS = ["baton", "iceoryx", "cyclonedds"]
# What each row is: only the rcl rows are ROS 2 (rcl C++ nodes, C++ messages).
LABEL = {
    "baton": "native baton (opencl:0 domain endpoints)",
    "iceoryx": "iceoryx classic (not ROS)",
    "cyclonedds": "raw CycloneDDS, no rcl (not ROS)",
    "rcl-fastrtps": "rcl C++ on rmw_fastrtps_cpp (ROS 2)",
    "rcl-baton": "rcl C++ on rmw_baton_cpp (ROS 2)",
}
RCL_SIDE = {"rcl-fastrtps": "fastdds", "rcl-baton": "baton"}  # rcl_env's name of the RMW
IMAGE_BYTES = 3840 * 2160  # 4K, 8-bit grey (bench/seed002/device_work.hpp)
SIZES = [1 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20]
# Seed 002's figures (Ryzen 7 3700X + RTX 2070 Super, CUDA; nodes as threads of one process).
PAPER_PAIR_MS = {"baton": None, "hazcat": 13.7, "iceoryx": 27.2, "cyclonedds": 50.8}
PAPER_GRAPHS = (
    "98 graphs; Hazcat faster than CycloneDDS on every graph, within ±10 % of iceoryx on 60 %, "
    "faster than iceoryx on 9 %"
)


# ------------------------------------------------------------------ graphs -----------------
def bilateral_graph(samples: int, warmup: int, seed: int) -> tuple[str, dict]:
    text = (
        f"samples {samples}\nwarmup {warmup}\nseed {seed}\n"
        f"node 0 bilateral 1 {IMAGE_BYTES}\nnode 1 bilateral 1 {IMAGE_BYTES}\nedge 0 1\n"
    )
    return text, {"nodes": 2, "edges": 1, "path": 2, "devices": 2}


def random_graph(rng: random.Random, samples: int, warmup: int) -> tuple[str, dict]:
    """A layered DAG: node 0 is the source; `path` layers give the critical path (in nodes)."""
    n = rng.randint(2, 14)
    path = rng.randint(2, min(5, n))
    layer = [0] + list(range(1, path)) + [rng.randint(1, path - 1) for _ in range(n - path)]
    layer.sort()  # ids grow with the layer: every edge goes from a lower id to a higher one
    edges = set()
    for v in range(1, n):  # one parent in the layer above: every node is reached, path holds
        edges.add((rng.choice([u for u in range(n) if layer[u] == layer[v] - 1]), v))
    extra = [(u, v) for u in range(n) for v in range(n) if layer[u] < layer[v]]
    extra = [e for e in extra if e not in edges]
    target = rng.randint(len(edges), min(17, len(edges) + len(extra)))
    rng.shuffle(extra)
    edges.update(extra[: target - len(edges)])
    while True:  # iceoryx's mempools (roudi_config.toml) bound the number of large topics
        sizes = [rng.choice(SIZES) for _ in range(n)]
        if sum(s >= 256 << 10 for s in sizes) <= 6 and sum(s >= 4 << 20 for s in sizes) <= 3:
            break
    kinds = [rng.choice(["cpu", "dev"]) for _ in range(n)]
    lines = [f"samples {samples}", f"warmup {warmup}", f"seed {rng.randint(1, 1 << 30)}"]
    for i in range(n):
        reps = rng.randint(1, 4) if kinds[i] == "cpu" else rng.randint(1, 32)
        lines.append(f"node {i} {kinds[i]} {reps} {sizes[i]}")
    lines += [f"edge {u} {v}" for u, v in sorted(edges)]
    meta = {"nodes": n, "edges": len(edges), "path": path, "devices": kinds.count("dev")}
    return "\n".join(lines) + "\n", meta


# ------------------------------------------------------------------ iceoryx RouDi ----------
class _Roudi:
    """iox-roudi with the peers' config (pools up to 25 MiB) if none runs, kept for the whole
    experiment (stream.py's helpers; its own config stops at 2 MiB) and stopped in report()."""

    proc: subprocess.Popen | None = None

    @classmethod
    def ensure(cls) -> None:
        if _roudi_running():
            return  # someone's RouDi: used as is (a loan error says if its pools are short)
        if shutil.which("iox-roudi") is None:
            raise ExperimentFailed("iox-roudi not installed (apt install iceoryx)")
        cfg = ROOT / "bench/peers/iceoryx_classic/roudi_config.toml"
        cls.proc = subprocess.Popen(
            ["iox-roudi", "-c", str(cfg), "-l", "warning"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        atexit.register(cls.stop)
        _wait_until(_roudi_running, cls.proc, "iox-roudi", 20)

    @classmethod
    def stop(cls) -> None:
        if cls.proc is not None:
            _stop(cls.proc, grace=10)
            cls.proc = None


# ------------------------------------------------------------------ tasks ------------------
def _one(ctx: Context, system: str, label: str, text: str, meta: dict, part: str) -> list[Result]:
    p = ctx.params[NAME]
    if system == "iceoryx":
        _Roudi.ensure()
    tmp = ctx.raw_tmp()
    graph = tmp / f"{label}.graph"
    graph.write_text(text)
    raw = tmp / "latency.csv"
    exe = ctx.build / "bench/seed002/baton-bench-graph"
    env = None
    if system in RCL_SIDE:  # the same program built against the ROS 2 wheels, in their env
        exe = ctx.build / "bench/seed002/baton-bench-graph-rcl"
        require_rcl(ctx.build, exe, RCL_SIDE[system])
        env = rcl_env(
            RCL_SIDE[system], p["dds_domain"], f"sd002{system.replace('-', '')}", ctx.build
        )
    cmd = [str(exe), "--system", system, "--graph", str(graph), "--raw", str(raw)]
    cmd += ["--label", label, "--domain", str(p["dds_domain"])]
    run(cmd, timeout=p["timeout_s"], env=env)
    if not raw.exists():
        raise ExperimentFailed("no samples written")
    size = IMAGE_BYTES if part == "bilateral" else 0
    return [Result(NAME, system, label, size, read_floats(raw), "ms", {"part": part, **meta})]


def plan(ctx: Context) -> list[tuple[str, str, dict, str]]:
    """(label, graph text, meta, part) for every graph of this suite, from the suite's seed."""
    p = ctx.params[NAME]
    out = []
    b = p["bilateral"]
    text, meta = bilateral_graph(b["samples"], b["warmup"], ctx.seed)
    out.append(("bilateral-pair", text, meta, "bilateral"))
    rng = random.Random(ctx.seed * 1000 + 2)
    g = p["graphs"]
    for i in range(g["count"]):
        text, meta = random_graph(rng, g["samples"], g["warmup"])
        out.append((f"graph-{i:02d}", text, meta, "graph"))
    return out


def tasks(ctx: Context) -> list[Task]:
    p = ctx.params[NAME]
    out = []
    for label, text, meta, part in plan(ctx):
        steps = p[part if part == "bilateral" else "graphs"]
        per_step = 0.2 if part == "bilateral" else 0.05
        weight = 1.0 + 0.25 * meta["nodes"] + per_step * (steps["samples"] + steps["warmup"])
        # The rcl rows: the bilateral pair only (seed 002's nodes were rclcpp nodes).
        extra = p.get("rcl_systems", []) if part == "bilateral" else []
        for system in [*p["systems"], *extra]:
            out.append(
                Task(
                    NAME,
                    f"seed002 {label} {system}",
                    lambda c, s=system, lb=label, t=text, m=meta, pt=part: _one(c, s, lb, t, m, pt),
                    weight=weight,
                )
            )
    return out


# ------------------------------------------------------------------ report -----------------
def _pct(a: float, b: float) -> str:
    return f"{100.0 * (a / b - 1):+.1f}%" if b > 0 else "-"


def _bilateral(ctx: Context, res: list[Result], plots: Path) -> tuple[list[str], list[str]]:
    from .common import stats

    pair = {r.system: r for r in res if r.extra.get("part") == "bilateral"}
    if not pair:
        return ["### (A) bilateral filter pair", "", "no results", ""], []
    ref = stats(pair["iceoryx"].values)["mean"] if "iceoryx" in pair else 0
    p = ctx.params[NAME]
    base = stats(pair["baton"].values)["mean"] if "baton" in pair else 0
    rows, short = [], []
    for system in [*p["systems"], *p.get("rcl_systems", [])]:
        r = pair.get(system)
        if r is None:
            rows.append([LABEL[system], "failed", "", "", "", "", "", "", "", "-"])
            continue
        s = stats(r.values)
        paper = PAPER_PAIR_MS.get(system)
        rows.append(
            [
                LABEL[system],
                s["samples"],
                f"{s['mean']:.2f}",
                f"{s['median']:.2f}",
                f"{s['sd']:.2f}",
                f"{s['p99']:.2f}",
                f"{s['max']:.2f}",
                _pct(s["mean"], ref) if ref else "-",
                f"{s['mean'] / base:.2f}×" if base else "-",
                f"{paper} ms" if paper else ("Hazcat 13.7 ms" if system == "baton" else "-"),
            ]
        )
        short.append(f"  pair {system:<12} mean {s['mean']:8.2f} ms  p99 {s['p99']:8.2f}")
    md = [
        "### (A) two components, bilateral filter on a random 4K image (paper Figure 5)",
        "",
        "Source node: uploads a random 3840x2160 8-bit image (the same for every system), runs a "
        "3x3 bilateral filter on the device, publishes the result; second node: takes it, "
        "filters again on the device, reads the result back. End-to-end = source start to "
        "second node done, ms. CycloneDDS / iceoryx / rcl nodes copy the message device->host "
        "before publishing and host->device after taking (as the paper's peers do); baton's nodes "
        "take and loan in the `opencl:0` memory domain. The rcl rows are rcl C++ nodes with "
        "`sensor_msgs/msg/Image` (mono8 4K), the same program on each RMW "
        "(`bench/seed002/rcl_link.cpp`): rmw_baton_cpp has no device domain, so its row copies "
        "like the others. On PoCL's host-unified CPU device a "
        "hand-written CL_MEM_USE_HOST_PTR could spare iceoryx those copies too; on a discrete "
        "GPU it could not. Paper column: its own figures (RTX 2070 Super, CUDA), shape only.",
        "",
        md_table(
            [
                "row (what it is)",
                "samples",
                "mean",
                "median",
                "sd",
                "p99",
                "max",
                "vs iceoryx",
                "÷ native baton",
                "paper",
            ],
            rows,
        ),
        "",
    ]
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        systems = [s for s in [*p["systems"], *p.get("rcl_systems", [])] if s in pair]
        fig, ax = plt.subplots(figsize=(6.5, 4))
        ax.violinplot([pair[s].values for s in systems], showmedians=True)
        ax.set_xticks(range(1, len(systems) + 1))
        ax.set_xticklabels(systems)
        ax.set_ylabel("end-to-end latency (ms)")
        ax.set_title("Seed 002: bilateral filter pair, 4K image (OpenCL on PoCL)")
        fig.tight_layout()
        fig.savefig(plots / "seed002_bilateral.png", dpi=110)
        plt.close(fig)
        md += ["![seed002 bilateral](plots/seed002_bilateral.png)", ""]
    except Exception as e:  # noqa: BLE001 - a plot never fails the suite
        md += [f"(plot failed: {e})", ""]
    return md, short


def _graphs(ctx: Context, res: list[Result], plots: Path) -> tuple[list[str], list[str]]:
    from .common import stats

    by: dict[str, dict[str, Result]] = {}
    for r in res:
        if r.extra.get("part") == "graph":
            by.setdefault(r.configuration, {})[r.system] = r
    if not by:
        return ["### (B) random graphs", "", "no results", ""], []
    rows = []
    count = {"baton<cyclonedds": 0, "within10": 0, "faster10": 0, "compared": 0}
    for label in sorted(by):
        g = by[label]
        any_r = next(iter(g.values()))
        means = {s: stats(r.values)["mean"] for s, r in g.items()}
        ice = means.get("iceoryx")
        cells = [f"{means[s]:.2f}" if s in means else "failed" for s in ctx.params[NAME]["systems"]]
        if ice and "baton" in means:
            count["compared"] += 1
            ratio = means["baton"] / ice
            count["within10"] += abs(ratio - 1) <= 0.10
            count["faster10"] += ratio < 0.90
            if "cyclonedds" in means:
                count["baton<cyclonedds"] += means["baton"] < means["cyclonedds"]
        e = any_r.extra
        rows.append(
            [
                label,
                e["nodes"],
                e["edges"],
                e["path"],
                e["devices"],
                *cells,
                _pct(means["baton"], ice) if ice and "baton" in means else "-",
                _pct(means["cyclonedds"], ice) if ice and "cyclonedds" in means else "-",
            ]
        )
    n = count["compared"]
    summary = (
        f"baton faster than CycloneDDS on {count['baton<cyclonedds']}/{n} graphs, within ±10 % "
        f"of iceoryx on {count['within10']}/{n}, more than 10 % faster than iceoryx on "
        f"{count['faster10']}/{n}"
    )
    md = [
        "### (B) random graphs, latency relative to iceoryx (paper Figure 6)",
        "",
        f"{len(by)} seeded graphs (seed {ctx.seed}); per node: CPU or device work "
        "(`reps` rounds per output byte), output size 1 KiB-4 MiB; mean end-to-end ms per "
        f"system. {summary}. Paper (Hazcat, other hardware): {PAPER_GRAPHS}.",
        "",
        md_table(
            ["graph", "nodes", "edges", "path", "device nodes"]
            + [f"{s} (ms)" for s in ctx.params[NAME]["systems"]]
            + ["baton vs iceoryx", "cyclonedds vs iceoryx"],
            rows,
        ),
        "",
    ]
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        order = sorted(
            (lb for lb in by if "iceoryx" in by[lb]),
            key=lambda lb: stats(by[lb]["iceoryx"].values)["mean"],
        )
        fig, ax = plt.subplots(figsize=(max(6, 0.12 * len(order) + 4), 4))
        for i, system in enumerate(ctx.params[NAME]["systems"]):
            xs, ys = [], []
            for x, lb in enumerate(order):
                r = by[lb].get(system)
                if r is None:
                    continue
                ref = stats(by[lb]["iceoryx"].values)["mean"]
                xs += [x + (i - 1) * 0.2] * len(r.values)
                ys += [v - ref for v in r.values]
            ax.scatter(xs, ys, s=6, alpha=0.6, label=system, color=f"C{i}")
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_xticks(range(len(order)))
        ax.set_xticklabels([lb.removeprefix("graph-") for lb in order], fontsize=6)
        ax.set_xlabel("graph (ordered by iceoryx mean latency)")
        ax.set_ylabel("Δ ms vs iceoryx mean of the same graph")
        ax.set_title("Seed 002: random graphs, latency relative to iceoryx")
        ax.legend()
        fig.tight_layout()
        fig.savefig(plots / "seed002_graphs.png", dpi=110)
        plt.close(fig)
        md += ["![seed002 graphs](plots/seed002_graphs.png)", ""]
    except Exception as e:  # noqa: BLE001 - a plot never fails the suite
        md += [f"(plot failed: {e})", ""]
    return md, [f"  graphs: {summary}"]


def report(ctx: Context, summaries: list[dict], plots: Path) -> tuple[str, str]:
    _Roudi.stop()
    res = [r for r in ctx.results if r.experiment == NAME]
    if not res:
        return "## Seed 002\n\nnot run (no results)\n", ""
    a, sa = _bilateral(ctx, res, plots)
    b, sb = _graphs(ctx, res, plots)
    md = [
        "## Seed 002: bilateral filter pair and random graphs (baton, iceoryx, CycloneDDS; rcl C++ "
        "on rmw_fastrtps_cpp and rmw_baton_cpp for the pair)",
        "",
    ]
    return "\n".join(md + a + b), "\n".join(sa + sb)
