"""Seed 004 on ROS 1 (issue 19's benchmark): the paper's chain para_in -> add_para -> add, three
processes, each node a stock roscpp node, a stock rospy node or a baton ROS 1 node
(bench/seed004), in five configurations; and a 4K sensor_msgs/Image one-way, baton -> roscpp over
TCPROS beside roscpp -> roscpp.

The paper's message ("two int32 values") is std_msgs/Int32MultiArray [seq, value] here: Debian
ships no two-int32 type. para_in publishes at a fixed rate (no queue forms); add_para publishes
from its subscription callback; latency = add's callback - para_in's publish (CLOCK_MONOTONIC,
one machine), over both hops. Every run has its own rosmaster on a free port of 127.0.0.1 with
its own ROS_MASTER_URI and ROS_HOME (bench/suite/stream.py), stopped afterwards. A node program
the experiment needs that is missing fails the experiment with its install hint.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from .common import Context, ExperimentFailed, Result, Task, md_table, stats
from .plots import cdf, figure
from .stream import Role, eta, latencies_us, run_roles

NAME = "seed004"
IMAGE_BYTES = 3840 * 2160 * 3
# Sugata et al. (seed 004), Figure 11: mean of 10 publish -> receipt latencies over the chain,
# nodes on separate machines linked by Gigabit Ethernet.
PAPER_MS = [
    ("paper (1) PC-PC, software ROS 1 nodes", 0.9),
    ("paper (2) PC-ARM", 1.0),
    ("paper (4) PC-FPGA, hardware TCPROS publisher, MSS 12", 0.5),
]
BATON, ROSCPP, ROSPY = "seed004-baton", "seed004-roscpp", "seed004-rospy"
# The baton node without the dynamic ros2::Value: publish_serialized() and the two int32 read
# from the received bytes (baton_chain.cpp --bytes 1), as generated message code would do.
BATON_BYTES = BATON + "+bytes"
NATIVE = "baton"  # bench/stream's baton program: native baton topics, no ROS 1 (the floor)
LABEL = {BATON: "baton", ROSCPP: "roscpp", ROSPY: "rospy", NATIVE: "native baton"}
LABEL[BATON_BYTES] = "baton (bytes)"
# (configuration, (para_in, add_para, add)); the first is the reference of the ratios.
CHAINS = [
    ("all roscpp", (ROSCPP, ROSCPP, ROSCPP)),
    ("all rospy", (ROSPY, ROSPY, ROSPY)),
    ("all baton", (BATON, BATON, BATON)),
    ("baton middle, roscpp ends", (ROSCPP, BATON, ROSCPP)),
    ("baton ends, roscpp middle", (BATON, ROSCPP, BATON)),
    # Where all-baton's time goes: without the dynamic Value, then without ROS 1 at all.
    ("all baton, serialized bytes", (BATON_BYTES, BATON_BYTES, BATON_BYTES)),
    # Not ROS 1: the same chain on native baton topics (the stream protocol's program, reliable
    # keep-last 100, blocking waits), what BATONSHM's shared-memory hops could reach at best.
    ("native baton topics (no ROS 1)", (NATIVE, NATIVE, NATIVE)),
]
# (direction, (publisher, subscriber)); the first is the reference.
IMAGES = [("roscpp -> roscpp", (ROSCPP, ROSCPP)), ("baton -> roscpp", (BATON, ROSCPP))]


def hop(a: str, b: str) -> str:
    """The transport between two nodes: BATONSHM between baton ROS 1 nodes, else TCPROS."""
    if a == b == NATIVE:
        return "baton topic"
    return "BATONSHM" if is_baton(a) and is_baton(b) else "TCPROS"


def is_baton(node: str) -> bool:
    """A baton ROS 1 node (with or without --bytes)."""
    return node.split("+")[0] == BATON


def check_nodes(ctx: Context, nodes: tuple[str, ...]) -> None:
    """Fails with the install hint when a node program the run needs is missing."""
    ros1 = "scripts/install-ros1.sh ({}), then cmake -S . -B {} && "
    built = {
        NATIVE: (ctx.build / "bench/stream/baton-bench-stream", ""),
        BATON: (
            ctx.build / "bench/seed004/baton-bench-seed004",
            ros1.format("libxmlrpcpp-dev", ctx.build),
        ),
        ROSCPP: (
            ctx.build / "bench/seed004/baton-bench-seed004-roscpp",
            ros1.format("libroscpp-dev libstd-msgs-dev libsensor-msgs-dev", ctx.build),
        ),
    }
    for n in {n.split("+")[0] for n in nodes}:
        if n in built and not built[n][0].exists():
            path, hint = built[n]
            raise ExperimentFailed(f"{path.name} not built: {hint}ninja -C {ctx.build} {path.name}")
        if n == ROSPY:
            probe = "import rospy, std_msgs.msg, sensor_msgs.msg"
            r = subprocess.run(["/usr/bin/python3", "-c", probe], capture_output=True, text=True)
            if r.returncode != 0:
                raise ExperimentFailed(
                    "rospy not installed for /usr/bin/python3: scripts/install-ros1.sh "
                    "(python3-rospy python3-std-msgs python3-sensor-msgs)"
                )


def transport_problems(nodes: tuple[str, ...], st: dict, total: int, received: int) -> list[str]:
    """What a baton end says about its hop (its .stats file) against what the hop should be."""
    out = []
    first, last = nodes[0], nodes[-1]
    if is_baton(first):
        want = hop(first, nodes[1])
        s = st.get("para_in", {})
        sent, other = (
            (s.get("sent_batonshm", 0), s.get("sent_tcpros", 0))
            if want == "BATONSHM"
            else (s.get("sent_tcpros", 0), s.get("sent_batonshm", 0))
        )
        if sent < total or other:
            out.append(f"para_in sent {sent} over {want} and {other} the other way, not {total}")
    if is_baton(last):
        want = hop(nodes[-2], last)
        r = st.get("add", {})
        got = r.get(f"received_{want.lower()}", 0)
        other = sum(v for k, v in r.items() if k.startswith("received_")) - got
        if got < received or other:
            out.append(f"add received {got} over {want} and {other} the other way")
    return out


def _run(ctx: Context, label: str, nodes: tuple[str, ...], size: int, p: dict) -> Result:
    check_nodes(ctx, nodes)
    names = ["para_in", "add_para", "add"] if len(nodes) == 3 else ["para_in", "add"]
    topics = ["input_data", "output_data"]
    args = [{"out": topics[0]}]  # per node: para_in, [add_para,] add
    args += [{"in": topics[0], "out": topics[1]}] if len(nodes) == 3 else []
    args += [{"in": topics[len(nodes) - 2], "relays": len(nodes) - 2}]
    kinds = ["sender", *(["relay"] if len(nodes) == 3 else []), "receiver"]
    roles = [
        Role(name, kind, dict(a, bytes=1) if n == BATON_BYTES else a, system=n.split("+")[0])
        for name, kind, a, n in reversed(list(zip(names, kinds, args, nodes)))
    ]  # the receiver starts first, the sender last
    common = {"sizes": size, "per_size": p["count"], "rate": p["rate"], "depth": 100}
    logs = run_roles(ctx, roles[-1].system, "blocking", roles, common, p["timeout_s"])
    sends, recvs = logs.sends["para_in"], logs.recvs[names[-1]]
    hops = [hop(a, b) for a, b in zip(nodes, nodes[1:])]
    extra = {
        "sent": len(sends),
        "received": len(recvs),
        "lost": len(sends) - len(recvs),
        "rate_hz": p["rate"],
        "nodes": [LABEL[n] for n in nodes],
        "hops": hops,
        "problems": transport_problems(nodes, logs.stats, len(sends), len(recvs)),
    }
    conf = " -> ".join(f"{r} ({LABEL[n]})" for r, n in zip(names, nodes))
    return Result(NAME, label, conf, size, latencies_us(sends, recvs), "us", extra)


# A configuration's rounds so far, per run: {(id(ctx), label): [Result, ...]}.
_ROUNDS: dict[tuple[int, str], list[Result]] = {}


def _merge(parts: list[Result]) -> Result:
    """One configuration's rounds as one result: samples in round order, counts added."""
    first = parts[0]
    extra = dict(first.extra, rounds=len(parts))
    for k in ("sent", "received", "lost"):
        extra[k] = sum(r.extra[k] for r in parts)
    extra["problems"] = [x for r in parts for x in r.extra["problems"]]
    values = [v for r in parts for v in r.values]
    return Result(NAME, first.system, first.configuration, first.size, values, first.unit, extra)


def _round(ctx: Context, label: str, nodes: tuple, size: int, key: str, k: int) -> list[Result]:
    """Round k of a configuration; the last round returns the merged result of all."""
    p = ctx.params[NAME][key]
    part = _run(ctx, label, nodes, size, dict(p, count=p["count"] // p["rounds"]))
    parts = _ROUNDS.setdefault((id(ctx), label), [])
    parts.append(part)
    if k < p["rounds"] - 1:
        return []
    del _ROUNDS[(id(ctx), label)]
    return [_merge(parts)]


def tasks(ctx: Context) -> list[Task]:
    """Every configuration in `rounds` rounds, the configurations taking turns within a round, so
    that a change of the machine's load in the meantime falls on all of them alike."""
    p = ctx.params[NAME]
    out = []
    for key, size, configs in (("chain", 8, CHAINS), ("image", IMAGE_BYTES, IMAGES)):
        q = p[key]
        what = "ROS 1 chain" if key == "chain" else "4K Image one-way"
        for k in range(q["rounds"]):
            for label, nodes in configs:
                n = q["count"] // q["rounds"]
                start = eta("ros1-rospy" if ROSPY in nodes else "roscpp", n, len(nodes))
                out.append(
                    Task(
                        NAME,
                        f"seed 004 {what}, {label} ({k + 1}/{q['rounds']})",
                        lambda c, lb=label, nd=nodes, sz=size, ky=key, kk=k: _round(
                            c, lb, nd, sz, ky, kk
                        ),
                        weight=start + n / q["rate"],
                    )
                )
    return out


# Median ratio to the reference (the first configuration) each configuration must not exceed.
TARGETS = {"all baton": 0.1, "baton middle, roscpp ends": 1.0, "baton ends, roscpp middle": 1.0}
TARGETS["baton -> roscpp"] = 1.0


def _rows(
    results: list[Result], reference: str, scale: float, short_label: str
) -> tuple[list[list], list[str]]:
    """Table rows (figures divided by `scale`) with ratios to configuration `reference` and the
    target each configuration has, and the console lines."""
    ref_result = next((r for r in results if r.system == reference and r.values), None)
    ref = stats(ref_result.values) if ref_result else None
    rows, short = [], []
    for r in results:
        s = stats(r.values) if r.values else None
        ratio = s["median"] / ref["median"] if s and ref else None
        p99_ratio = s["p99"] / ref["p99"] if s and ref else None
        want = TARGETS.get(r.system)
        met = "" if want is None or ratio is None else "yes" if ratio <= want else "**no**"
        rows.append(
            [
                r.system,
                " / ".join(r.extra["nodes"]),
                " + ".join(r.extra["hops"]),
                f"{r.extra['received']}/{r.extra['sent']}",
                f"{s['median'] / scale:.{0 if scale == 1 else 2}f}" if s else "none arrived",
                f"{s['p99'] / scale:.{0 if scale == 1 else 2}f}" if s else "",
                f"{ratio:.3f}" if ratio is not None else "",
                f"{p99_ratio:.3f}" if p99_ratio is not None else "",
                "reference" if r.system == reference else f"≤ {want:g}" if want else "",
                met,
                "; ".join(r.extra["problems"]),
            ]
        )
        if s:
            unit = "µs" if scale == 1 else "ms"
            short.append(
                f"  {short_label}{r.system:<26} median {s['median'] / scale:9.2f} {unit}"
                f"  p99 {s['p99'] / scale:9.2f} {unit}"
                + (f"  x{ratio:.3f} {met}" if ratio is not None and r.system != reference else "")
            )
    return rows, short


HEADER = ["configuration", "nodes", "hops", "received", "median", "p99", "median ratio"]
HEADER += ["p99 ratio", "target", "met", "problems"]


def report(ctx: Context, summaries: list[dict], plots: Path) -> tuple[str, str]:
    p = ctx.params[NAME]
    res = [r for r in ctx.results if r.experiment == NAME]
    chains = [r for r in res if r.size == 8]
    images = [r for r in res if r.size == IMAGE_BYTES]
    rows, short = _rows(chains, CHAINS[0][0], 1, "")
    for label, ms in PAPER_MS:
        rows.append([label, "", "Gigabit Ethernet", "mean of 10", f"{ms * 1000:.0f}", *[""] * 6])
    img_rows, img_short = _rows(images, IMAGES[0][0], 1000, "4K Image ")
    short += img_short
    c, i = p["chain"], p["image"]
    md = [
        "## Seed 004 on ROS 1: para_in → add_para → add with roscpp, rospy and baton nodes",
        "",
        f"{c['count']} messages at {c['rate']} Hz per configuration in {c['rounds']} rounds (the "
        "configurations take turns), three processes on this "
        "machine, each run with its own rosmaster (127.0.0.1). Message: std_msgs/Int32MultiArray "
        "[seq, value], the closest std_msgs type to the paper's two-int32 message (Debian ships "
        "none). Latency = add's subscription callback − para_in's publish, over both hops; "
        "median and p99 in µs. Ratios against all-roscpp in the same run; targets: all-baton ≤ "
        "0.1, a mixed chain ≤ 1 (medians). The paper's figures are means of 10 over Gigabit "
        "Ethernet between machines.",
        "",
        md_table(HEADER, rows) if rows else "no chain ran",
        "",
        f"4K sensor_msgs/Image (3840×2160 rgb8, {IMAGE_BYTES} B) one-way over TCPROS, "
        f"{i['count']} images at {i['rate']} Hz in {i['rounds']} rounds; latency = the roscpp "
        "subscriber's callback − publish; median and p99 in ms. Target: baton → roscpp ≤ "
        "roscpp → roscpp (median).",
        "",
        md_table(HEADER, img_rows) if img_rows else "no image run",
        "",
    ]

    def draw(axes):
        for r in chains:
            cdf(axes[0], r.values, label=r.system)
        axes[0].set_xscale("log")
        axes[0].set_xlabel("para_in publish -> add callback (µs, log)")
        axes[0].set_ylabel("CDF")
        axes[0].set_title("Seed 004 chain on ROS 1")

    md += figure(plots, "seed004_cdf", "seed 004 chain on ROS 1", draw)
    return "\n".join(md), "\n".join(short)
