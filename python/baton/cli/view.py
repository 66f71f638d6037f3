"""``baton view``: this namespace's topics, live, on a Foxglove WebSocket server."""

from __future__ import annotations

import sys
from typing import Any

from ._common import (
    add_format,
    cli_context,
    emit_json,
    emit_json_line,
    stop_on_interrupt_or_term,
    table,
    topic_completer,
)


def register(sub: Any) -> None:
    p = sub.add_parser(
        "view",
        help="serve topics live to Foxglove (WebSocket)",
        description="Serve this namespace's topics to Foxglove (Open connection -> Foxglove "
        "WebSocket -> the printed URL) until Ctrl-C. Every topic is advertised with its schema "
        "(ROS 2 topics as ros2 bag has them); a topic is subscribed, best-effort, only while a "
        "client watches it. Image topics get a <topic>/compressed JPEG channel when "
        "--image-scale or --jpeg-quality is given. Binds to 127.0.0.1 unless --host and "
        "--allow-remote say otherwise: the protocol has no authentication.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8765, help="port (default 8765; 0: a free one)")
    p.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a --host that is not loopback (anyone reaching it sees every topic)",
    )
    p.add_argument(
        "--topics", nargs="+", default=[], help="serve only these topics (default: all)"
    ).completer = topic_completer
    p.add_argument("-e", "--regex", help="serve topics whose full name matches this regex")
    p.add_argument("--include-hidden-topics", action="store_true", help="with all / --regex")
    p.add_argument(
        "--image-scale",
        type=int,
        default=1,
        metavar="N",
        help="compressed images keep every N-th row and column (default 1)",
    )
    p.add_argument("--jpeg-quality", type=int, metavar="Q", help="JPEG quality 1..100 (default 75)")
    p.add_argument(
        "--max-rate",
        type=float,
        default=0.0,
        metavar="HZ",
        help="at most HZ messages per second per channel (default: every message; "
        "compressed images 15)",
    )
    p.add_argument("--queue-depth", type=int, default=10, help="per-topic queue of the viewer (10)")
    p.add_argument("--duration", type=float, help="stop after this many seconds")
    add_format(p)
    p.set_defaults(func=cmd_view)


def cmd_view(args: Any) -> int:
    from baton.view import ViewServer, is_loopback

    try:
        same_names = ("host", "port", "allow_remote", "topics", "regex", "image_scale")
        same_names += ("jpeg_quality", "max_rate", "queue_depth")
        view = ViewServer(
            include_hidden=args.include_hidden_topics,
            context=cli_context(),
            **{k: getattr(args, k) for k in same_names},
        )
    except ValueError as e:
        if hasattr(e, "exit_code"):  # a BatonError: the CLI prints its hint
            raise
        print(f"error: {e}", file=sys.stderr)
        return 2
    if not is_loopback(args.host):
        print(
            f"warning: serving on {args.host}: anyone who can reach port {view.port} sees every "
            "topic (no authentication)",
            file=sys.stderr,
        )
    if args.format == "json":
        emit_json_line({"url": view.url})
    else:
        print(f"serving {view.url}", flush=True)
        print("open it in Foxglove: Open connection -> Foxglove WebSocket", file=sys.stderr)
    stop_on_interrupt_or_term()  # Ctrl-C, kill -INT and SIGTERM close the viewer
    try:
        view.run(duration=args.duration)
    except KeyboardInterrupt:
        pass
    stats = view.close()
    for w in view.warnings:
        print(f"warning: {w}", file=sys.stderr)
    if args.format == "json":
        emit_json({"topics": stats})
    else:
        rows = [
            (t, s["kind"], s["sent"], s["compressed"], s["skipped"], s["lost"])
            for t, s in stats.items()
        ]
        print(table(rows, ("topic", "kind", "sent", "compressed", "skipped", "lost")))
    return 0
