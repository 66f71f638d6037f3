"""Shared pieces of the CLI: output in table or JSON form, graph access, completers."""

from __future__ import annotations

import json
import signal
import sys
from typing import Any, Iterable, Sequence

FORMATS = ("table", "json")


def add_format(parser: Any) -> None:
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="table",
        help="output as a human-readable table (default) or JSON",
    )


def _interrupt(*_: Any) -> None:
    raise KeyboardInterrupt


def stop_on_interrupt_or_term() -> None:
    """SIGINT and SIGTERM both end a long-running command the way Ctrl-C does (KeyboardInterrupt),
    so it closes its files and prints its summary. SIGINT is set explicitly: a command started
    with `&` from a script, or under nohup, inherits SIGINT ignored, and Python then leaves it
    ignored, so `kill -INT` (how scripts and rosbag users stop a recorder) did nothing."""
    signal.signal(signal.SIGINT, _interrupt)
    signal.signal(signal.SIGTERM, _interrupt)


def emit_json(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, sort_keys=False, default=str)
    sys.stdout.write("\n")


def emit_json_line(data: Any) -> None:
    sys.stdout.write(json.dumps(data, default=str) + "\n")
    sys.stdout.flush()


def table(rows: Sequence[Sequence[Any]], header: Sequence[str]) -> str:
    cells = [[str(c) for c in header]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def is_hidden(name: str) -> bool:
    """ROS convention: a name with a token starting with '_' is hidden."""
    return any(tok.startswith("_") for tok in name.split("/") if tok)


def snapshot() -> dict:
    import baton

    return baton.graph_snapshot(cli_context())


_ctx = None


def cli_context() -> Any:
    """The CLI's context: no janitor thread (it only looks, and reclaims on each snapshot)."""
    global _ctx
    if _ctx is None:
        import baton

        _ctx = baton.Context.create(janitor_period=0.0)
    return _ctx


def topic_completer(prefix: str, **_: Any) -> Iterable[str]:
    try:
        return [t["name"] for t in snapshot()["topics"] if t["name"].startswith(prefix)]
    except Exception:  # completion must never fail loudly
        return []


def node_completer(prefix: str, **_: Any) -> Iterable[str]:
    try:
        return [n["fqn"] for n in snapshot()["nodes"] if n["fqn"].startswith(prefix)]
    except Exception:
        return []


def service_completer(prefix: str, **_: Any) -> Iterable[str]:
    try:
        return [s["name"] for s in snapshot()["services"] if s["name"].startswith(prefix)]
    except Exception:
        return []


def human_bytes(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if abs(n) < 1000 or unit == "GB":
            return f"{n:.2f} {unit}" if unit != "B" else f"{n:.0f} B"
        n /= 1000.0
    return f"{n:.2f} GB"
