"""``baton clean``: removes segments left by dead participants (never a live one's)."""

from __future__ import annotations

from typing import Any

from ._common import add_format, emit_json, human_bytes, table

HELP = "remove segments of dead participants"
DESCRIPTION = (
    "Remove this user's baton segments in /dev/shm whose owners are gone. A segment a live "
    "process uses is never removed."
)


def register(sub: Any) -> None:
    add_arguments(sub.add_parser("clean", help=HELP, description=DESCRIPTION))


def add_arguments(p: Any) -> None:
    """`baton clean` and `baton shm clean` take the same arguments."""
    p.add_argument("-n", "--dry-run", action="store_true", help="only say what would be removed")
    p.add_argument(
        "--all-namespaces",
        action="store_true",
        help="every BATON_NAMESPACE, not only the current one",
    )
    p.add_argument(
        "--remove-corrupt", action="store_true", help="also remove segments that fail validation"
    )
    p.add_argument("-l", "--list", action="store_true", help="list the segments, remove nothing")
    add_format(p)
    p.set_defaults(func=cmd_clean)


def cmd_clean(args: Any) -> int:
    from .. import _baton

    if args.list:
        segs = _baton.list_segments(args.all_namespaces)
        if args.format == "json":
            emit_json(segs)
        else:
            rows = [
                (
                    s["name"],
                    s["kind"],
                    human_bytes(s["size"]),
                    s["creator_pid"],
                    "yes" if s["in_use"] else "no",
                    s["problem"] or "",
                )
                for s in segs
            ]
            print(table(rows, ["segment", "kind", "size", "pid", "in use", "problem"]))
        return 0
    r = _baton.clean_segments(args.dry_run, args.remove_corrupt, args.all_namespaces)
    if args.format == "json":
        emit_json({"dry_run": args.dry_run, **r})
        return 0
    verb = "would remove" if args.dry_run else "removed"
    for s in r["removed"]:
        print(f"{verb} {s['name']} ({s['kind']}, {human_bytes(s['size'])}, pid {s['creator_pid']})")
    for s in r["corrupt"]:
        print(f"corrupt, kept: {s['name']}: {s['problem']} (--remove-corrupt removes it)")
    print(f"{len(r['removed'])} {verb}, {len(r['kept'])} in use, {len(r['corrupt'])} corrupt")
    return 0
