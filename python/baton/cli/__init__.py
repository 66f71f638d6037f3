# PYTHON_ARGCOMPLETE_OK
"""The ``baton`` command line: ``baton <noun> <verb>`` with ros2-style verbs.

    baton topic list | info | echo | hz | bw | pub | delay
    baton node list | info
    baton service list | call
    baton shm list | inspect | clean
    baton config show | explain
    baton graph | doctor | clean | bench
    baton bag record | info | play (ROS 1 topics too: --ros1)
    baton view (a live Foxglove WebSocket server)

Every command has ``--help``; commands that print data take ``--format table|json``. User
errors print ``error: ...`` and ``hint: ...`` (no traceback) and exit non-zero:
2 usage / invalid name, 3 not found, 4 type mismatch, 5 permission, 6 shared memory,
7 too many endpoints, 8 timeout, 9 no OpenCL device, 10 bad bag file, 11 no ROS 1 master,
130 interrupted.
Shell completion: ``eval "$(register-python-argcomplete baton)"``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Optional, Sequence

from . import bag, bench, clean, config, doctor, graph, node, service, shm, topic, view


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="baton",
        description="baton: zero-copy shared-memory messaging. Inspect and use the graph of the "
        "current BATON_NAMESPACE.",
        epilog='Shell completion: eval "$(register-python-argcomplete baton)"',
    )
    parser.add_argument("--version", action="version", version="baton 0.1.0")
    sub = parser.add_subparsers(dest="noun", metavar="COMMAND", required=True)
    for module in (topic, node, service, shm, config, graph, doctor, clean, bench, bag, view):
        module.register(sub)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    try:
        import argcomplete

        argcomplete.autocomplete(parser)
    except ImportError:
        pass
    args = parser.parse_args(argv)
    from ..errors import BatonError

    try:
        return int(args.func(args) or 0)
    except BatonError as e:
        print(f"error: {e.detail or e.code}", file=sys.stderr)
        if e.hint:
            print(f"hint: {e.hint}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
