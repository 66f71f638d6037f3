"""``baton config show | explain``: the settings in effect, where each value came from, and
what it does.

baton reads no configuration file: a value is either a built-in default (read here from the very
C++ structs the core uses: ContextOptions, PoolConfig, QoS, ExecutorOptions), set per endpoint in
code (QoS, wait mode, max_message_size, Context options), or taken from the environment.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable

from ..errors import InvalidNameError
from ._common import add_format, emit_json, table


@dataclass(frozen=True)
class Setting:
    key: str
    value: Callable[[dict], Any]  # from the core's defaults()
    source: Callable[[], str]
    meaning: str
    change: str


def _default(where: str) -> Callable[[], str]:
    return lambda: f"default ({where})"


def _env(var: str, otherwise: str) -> Callable[[], str]:
    return lambda: f"env {var}" if os.environ.get(var) else otherwise


def _namespace(d: dict) -> str:
    from .. import _baton

    return _baton.current_namespace()


def _prefix(d: dict) -> str:
    from .. import _baton

    return _baton.segment_prefix()


SETTINGS = [
    Setting(
        "namespace", _namespace, _env("BATON_NAMESPACE", "default ('default')"),
        "Keeps robots / test runs on one host apart: only participants with the same "
        "namespace see each other's topics, nodes and services.",
        "export BATON_NAMESPACE=<name> in every process that should meet",
    ),
    Setting(
        "shm_dir", lambda d: "/dev/shm", lambda: "fixed (POSIX shm_open)",
        "Where segments live (a tmpfs). Its size limits how much message memory exists.",
        "mount -o remount,size=<n>G /dev/shm (see `baton doctor`)",
    ),
    Setting(
        "segment_prefix", _prefix, lambda: "derived (uid + namespace)",
        "Every segment of this user and namespace starts with this name; `baton shm list` "
        "and `baton clean` look only at these.",
        "follows BATON_NAMESPACE and the user id",
    ),
    Setting(
        "segment_mode", lambda d: f"{d['segment_mode']:04o}",
        _default("ContextOptions::segment_mode"),
        "Permissions of new segments: 0600 = this user only; 0660 shares with the group.",
        "baton.Context.create(segment_mode=0o660) / ContextOptions{.segment_mode = 0660}",
    ),
    Setting(
        "janitor_period_s", lambda d: d["janitor_period_s"], _default("ContextOptions"),
        "How often a context reclaims loans and segments of dead participants (0: never).",
        "baton.Context.create(janitor_period=s)",
    ),
    Setting(
        "graph_registry", lambda d: d["graph_registry"], _default("ContextOptions"),
        "The discovery registry segment a context registers in; processes see each other's "
        "nodes only through the same one.",
        "baton.Context.create(graph_registry=name)",
    ),
    Setting(
        "qos.depth", lambda d: d["qos_depth"], _default("QoS"),
        "keep_last(n): unread messages kept per publisher for each subscription.",
        "baton.QoS(n) / .keep_last(n) on the endpoint builder",
    ),
    Setting(
        "qos.reliability", lambda d: d["qos_reliability"], _default("QoS"),
        "reliable: a publisher waits (up to reliable_timeout) while a reliable subscription's "
        "queue is full; best_effort: the slow subscription loses its oldest messages.",
        "QoS().best_effort() / .reliable()",
    ),
    Setting(
        "qos.durability", lambda d: d["qos_durability"], _default("QoS"),
        "transient_local: a late-joining subscription gets the last `depth` messages.",
        "QoS().transient_local()",
    ),
    Setting(
        "qos.reliable_timeout_s", lambda d: d["qos_reliable_timeout_s"], _default("QoS"),
        "How long a reliable publish waits for room before it reports ReliableTimeout.",
        "QoS().reliable_timeout(seconds)",
    ),
    Setting(
        "wait_mode", lambda d: d["wait_mode"], _default("ExecutorOptions / subscriptions"),
        "blocking: sleep on a futex (the publisher makes a system call only when someone "
        "sleeps); busy-poll: spin (lowest latency, burns a core); adaptive: spin, then sleep.",
        'subscription builder .wait_mode("busy-poll"), Executor(wait_mode=...)',
    ),
    Setting(
        "adaptive_spin_us", lambda d: d["adaptive_spin_us"], _default("ExecutorOptions"),
        "How long the adaptive wait mode spins before it sleeps.",
        "ExecutorOptions::spin_time (C++)",
    ),
    Setting(
        "max_message_size", lambda d: d["max_message_size"], _default("PoolConfig"),
        "Largest single message (loan) a publisher can make, in bytes.",
        "publisher builder .max_message_size(bytes)",
    ),
    Setting(
        "max_pool_bytes", lambda d: d["max_pool_bytes"], _default("PoolConfig"),
        "Address space one publisher's chunk pool may grow to (not RAM).",
        "PoolConfig::max_total_bytes (C++)",
    ),
    Setting(
        "max_segment_bytes", lambda d: d["max_segment_bytes"], _default("PoolConfig"),
        "Largest address-space step of one on-demand pool growth, so one size class with a "
        "deep ring does not take GiBs of max_pool_bytes at once (reserve() is exempt).",
        "PoolConfig::max_segment_bytes (C++)",
    ),
    Setting(
        "expected_outstanding", lambda d: d["expected_outstanding"], _default("PoolConfig"),
        "Chunks a publisher can hold at once; a size class's first segment is sized for that "
        "many (address space only, chunks are committed one by one before first use). 0 = "
        "unknown; a publisher sets its QoS depth + 2.",
        "follows the QoS depth; publisher .reserve(max_message_size, count) commits up front",
    ),
    Setting(
        "limits.publishers_per_topic", lambda d: d["max_publishers_per_topic"],
        lambda: "fixed (topic layout)", "Publishers one topic holds at once.",
        "a layout constant: needs a rebuild and a layout version bump",
    ),
    Setting(
        "limits.subscriptions_per_topic", lambda d: d["max_subscriptions_per_topic"],
        lambda: "fixed (topic layout)", "Subscriptions one topic holds at once.",
        "a layout constant: needs a rebuild and a layout version bump",
    ),
    Setting(
        "limits.loans_per_subscription", lambda d: d["max_loans_per_subscription"],
        lambda: "fixed (topic layout)", "Samples one subscription may hold at once.",
        "release samples (with-blocks) instead",
    ),
    Setting(
        "opencl", lambda d: "compiled in" if d["opencl_compiled_in"] else "not compiled in",
        lambda: "build (OpenCL ICD loader found by CMake)",
        "Whether opencl:<n> domains exist in this build; `baton doctor` lists the devices.",
        "install ocl-icd-opencl-dev and rebuild",
    ),
    Setting(
        "ament_prefix_path", lambda d: os.environ.get("AMENT_PREFIX_PATH", "(unset)"),
        _env("AMENT_PREFIX_PATH", "unset"),
        "Where `baton topic echo` finds ROS 2 .msg files to print CDR messages field by field.",
        "source your ROS 2 setup, or export AMENT_PREFIX_PATH=<prefix>[:<prefix>...]",
    ),
    Setting(
        "nvrtc_library", lambda d: os.environ.get("BATON_NVRTC_LIBRARY", "(search the venv)"),
        _env("BATON_NVRTC_LIBRARY", "default (pip wheel in .venv)"),
        "The NVRTC library that compiles CUDA kernels (cuda:<n> domains).",
        "export BATON_NVRTC_LIBRARY=/path/libnvrtc.so",
    ),
]  # fmt: skip


def _resolved() -> list[dict]:
    from .. import _baton

    d = _baton.defaults()
    return [
        {
            "key": s.key,
            "value": s.value(d),
            "source": s.source(),
            "meaning": s.meaning,
            "change": s.change,
        }
        for s in SETTINGS
    ]


def register(sub: Any) -> None:
    cfg = sub.add_parser(
        "config",
        help="show the effective settings and explain them",
        description="The settings in effect: built-in defaults (from the core's own structs), "
        "environment variables, and where each value came from. baton reads no config file.",
    )
    verbs = cfg.add_subparsers(dest="verb", metavar="VERB", required=True)
    p = verbs.add_parser(
        "show", help="print each setting, its value and source", description="Print each "
        "setting's effective value and where it came from (default, env, fixed).",
    )  # fmt: skip
    add_format(p)
    p.set_defaults(func=cmd_show)
    p = verbs.add_parser(
        "explain",
        help="explain what each setting does and how to change it",
        description="For each setting (or one KEY): its value, source, what it does, and how "
        "to change it.",
    )
    p.add_argument("key", nargs="?", help="one setting, e.g. qos.depth").completer = (
        lambda prefix, **_: [s.key for s in SETTINGS if s.key.startswith(prefix)]
    )
    add_format(p)
    p.set_defaults(func=cmd_explain)


def cmd_show(args: Any) -> int:
    rows = _resolved()
    if args.format == "json":
        emit_json({r["key"]: {"value": r["value"], "source": r["source"]} for r in rows})
    else:
        print(
            table([(r["key"], r["value"], r["source"]) for r in rows], ["key", "value", "source"])
        )
    return 0


def cmd_explain(args: Any) -> int:
    rows = _resolved()
    if args.key is not None:
        rows = [r for r in rows if r["key"] == args.key]
        if not rows:
            raise InvalidNameError(
                f"no setting '{args.key}'",
                hint="known settings: " + ", ".join(s.key for s in SETTINGS),
            )
    if args.format == "json":
        emit_json(rows)
        return 0
    for i, r in enumerate(rows):
        if i:
            print()
        print(f"{r['key']} = {r['value']}    [{r['source']}]")
        print(f"  {r['meaning']}")
        print(f"  change: {r['change']}")
    return 0
