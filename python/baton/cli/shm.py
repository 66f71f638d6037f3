"""``baton shm list | inspect | clean``: this user's shared-memory segments.

``inspect`` decodes one segment's header and, for topic / publisher / data segments, its body.
The segment is never trusted: its header is read without mapping it and validated with the
checks every participant makes; a corrupt or foreign segment is reported (exit 6), not crashed
on. See python/src/py_segments.cpp.
"""

from __future__ import annotations

from typing import Any, Iterable

from . import clean
from ._common import add_format, emit_json, human_bytes, table


def segment_completer(prefix: str, **_: Any) -> Iterable[str]:
    try:
        from .. import _baton

        names = [s["name"].lstrip("/") for s in _baton.list_segments(False)]
        return [n for n in names if n.startswith(prefix.lstrip("/"))]
    except Exception:  # completion must never fail loudly
        return []


def register(sub: Any) -> None:
    shm = sub.add_parser(
        "shm",
        help="list, inspect and clean shared-memory segments",
        description="This user's baton segments in /dev/shm (current BATON_NAMESPACE).",
    )
    verbs = shm.add_subparsers(dest="verb", metavar="VERB", required=True)
    p = verbs.add_parser(
        "list",
        help="list segments with kind, size, owner and liveness",
        description="List the segments of this namespace: kind, size, the creating process and "
        "whether it is alive, whether a live participant still uses the segment, and any "
        "validation problem.",
    )
    p.add_argument("--all-namespaces", action="store_true", help="every BATON_NAMESPACE")
    add_format(p)
    p.set_defaults(func=cmd_list)
    p = verbs.add_parser(
        "inspect",
        help="decode one segment's header and body",
        description="Decode a segment: file size, mode and owner; the 64-byte header (magic, "
        "layout version, kind, total size, creator and whether it lives); the verdict of the "
        "checks every participant makes on open; and for topic / publisher / data segments the "
        "body (type, endpoint slots, ring geometry, chunks committed and in use). Exit 6 if the "
        "segment is corrupt or incompatible.",
    )
    target = p.add_mutually_exclusive_group(required=True)
    target.add_argument(
        "segment", nargs="?", help="segment name as `baton shm list` prints it (with or without /)"
    ).completer = segment_completer
    target.add_argument(
        "--topic", help="inspect the directory segment of this topic, e.g. /chatter"
    )
    add_format(p)
    p.set_defaults(func=cmd_inspect)
    p = verbs.add_parser("clean", help=clean.HELP, description=clean.DESCRIPTION)
    clean.add_arguments(p)


def cmd_list(args: Any) -> int:
    from .. import _baton

    segs = sorted(_baton.list_segments(args.all_namespaces), key=lambda s: s["name"])
    if args.format == "json":
        emit_json(segs)
        return 0
    rows = [
        (
            s["name"],
            s["kind"],
            human_bytes(s["size"]),
            s["creator_pid"] or "-",
            "yes" if s["creator_alive"] else "no",
            "yes" if s["in_use"] else "no",
            s["problem"] or "",
        )
        for s in segs
    ]
    print(table(rows, ["segment", "kind", "size", "pid", "alive", "in use", "problem"]))
    return 0


def _yes(b: bool) -> str:
    return "yes" if b else "no"


def _slot_line(s: dict) -> str:
    return (
        f"slot {s['slot']}: {s['state']}, pid {s['pid']} ({'alive' if s['alive'] else 'dead'}), "
        f"generation {s['generation']}, depth {s['depth']}, {s['reliability']}, "
        f"{s['durability']}"
    )


def _kv(key: str, value: Any) -> None:
    print(f"  {key:<22}{value}")


def print_report(r: dict) -> None:
    print(f"segment   {r['name']}")
    if "file_size" in r:
        print(f"file      {r['file_size']} bytes, mode {r['mode']}, owner uid {r['owner_uid']}")
    print(f"verdict   {r['verdict']}" + (f": {r['problem']}" if r.get("problem") else ""))
    h = r.get("header")
    if h:
        print("header")
        _kv("magic", f"{h['magic']} ({'ok' if h['magic_ok'] else 'not baton'})")
        _kv("layout_version", f"{h['layout_version']} (this build: {h['expected_layout_version']})")
        _kv("header_size", h["header_size"])
        _kv("kind", f"{h['kind']} ({h['kind_name']})")
        _kv("total_size", h["total_size"])
        _kv("ready", _yes(h["ready"]))
        alive = "alive" if h["creator_alive"] else "gone"
        _kv("creator", f"pid {h['creator_pid']} ({alive}), start time {h['creator_start_time']}")
    body = r.get("body")
    if body:
        print("body")
        for key, value in body.items():
            if isinstance(value, list):
                print(f"  {key}" + ("" if value else ": none"))
                for s in value:
                    print(f"    {_slot_line(s)}")
            else:
                _kv(key, value)


def cmd_inspect(args: Any) -> int:
    from .. import _baton

    name = args.segment
    if args.topic is not None:
        topic = args.topic if args.topic.startswith("/") else "/" + args.topic
        name = _baton.segment_name("t", topic)
    report = _baton.inspect_segment(name)
    if args.format == "json":
        emit_json(report)
    else:
        print_report(report)
    return 0 if report["verdict"] in ("ok", "not-ready") else 6
