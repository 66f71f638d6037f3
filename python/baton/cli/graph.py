"""``baton graph``: the node/topic graph as a DOT file and (with graphviz) a PNG."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from ._common import add_format, emit_json, is_hidden, snapshot


def register(sub: Any) -> None:
    p = sub.add_parser(
        "graph",
        help="draw nodes and topics (DOT and PNG)",
        description="Write the graph of nodes and topics as DOT and, if graphviz's "
        "`dot` is installed, as PNG (like rqt_graph).",
    )
    p.add_argument(
        "-o",
        "--output",
        default="baton_graph",
        help="output path without extension (default ./baton_graph)",
    )
    p.add_argument("--no-png", action="store_true", help="write the DOT file only")
    p.add_argument("-a", "--all", action="store_true", help="include hidden nodes and topics")
    add_format(p)
    p.set_defaults(func=cmd_graph)


def _q(s: str) -> str:
    return '"' + s.replace('"', '\\"') + '"'


def to_dot(snap: dict, include_hidden: bool = False) -> str:
    nodes = [n for n in snap["nodes"] if include_hidden or not is_hidden(n["fqn"])]
    names = {n["fqn"] for n in nodes}
    eps = [
        e
        for e in snap["endpoints"]
        if e["kind"] in ("publisher", "subscription")
        and e["node"] in names
        and (include_hidden or not is_hidden(e["name"]))
    ]
    topics = sorted({e["name"] for e in eps})
    lines = ["digraph baton {", "  rankdir=LR;", '  node [fontname="Helvetica"];']
    for n in sorted(names):
        lines.append(
            f'  {_q("n:" + n)} [label={_q(n)}, shape=ellipse, style=filled, fillcolor="#cfe2f3"];'
        )
    for t in topics:
        types = sorted({e["type"] for e in eps if e["name"] == t})
        label = t + "\\n" + ", ".join(types)
        lines.append(f"  {_q('t:' + t)} [label={_q(label)}, shape=box];")
    seen = set()
    for e in eps:
        edge = (
            ("n:" + e["node"], "t:" + e["name"])
            if e["kind"] == "publisher"
            else ("t:" + e["name"], "n:" + e["node"])
        )
        if edge not in seen:
            seen.add(edge)
            lines.append(f"  {_q(edge[0])} -> {_q(edge[1])};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def cmd_graph(args: Any) -> int:
    snap = snapshot()
    out = Path(args.output)
    dot_path = out.with_suffix(".dot")
    dot_path.write_text(to_dot(snap, args.all))
    png_path = None
    note = None
    if not args.no_png:
        dot = shutil.which("dot")
        if dot is None:
            note = "graphviz's `dot` not found (apt-get install graphviz): wrote DOT only"
        else:
            png_path = out.with_suffix(".png")
            r = subprocess.run(
                [dot, "-Tpng", str(dot_path), "-o", str(png_path)], capture_output=True, text=True
            )
            if r.returncode != 0:
                note = f"dot failed: {r.stderr.strip()}"
                png_path = None
    if args.format == "json":
        emit_json(
            {
                "dot": str(dot_path),
                "png": str(png_path) if png_path else None,
                "nodes": len(snap["nodes"]),
                "topics": len(snap["topics"]),
                "note": note,
            }
        )
    else:
        print(f"wrote {dot_path}")
        if png_path:
            print(f"wrote {png_path}")
    if note:
        print(f"note: {note}", file=sys.stderr)
    return 0
