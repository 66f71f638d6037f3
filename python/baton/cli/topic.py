"""``baton topic list | info | echo | hz | bw | pub | delay`` (as ``ros2 topic``); ``list`` also
shows the ROS 1 master's topics when one answers at ROS_MASTER_URI."""

from __future__ import annotations

import json
import math
import sys
import time
from typing import Any, Optional

import numpy as np

from . import ros1_master, ros2_yaml
from ._common import (
    add_format,
    cli_context,
    emit_json,
    emit_json_line,
    human_bytes,
    is_hidden,
    snapshot,
    topic_completer,
)


def register(sub: Any) -> None:
    topic = sub.add_parser(
        "topic", help="inspect and use topics", description="Topics (as ros2 topic)."
    )
    verbs = topic.add_subparsers(dest="verb", metavar="VERB", required=True)

    p = verbs.add_parser(
        "list",
        help="list the topics",
        description="List the topics in this namespace, then, when a ROS master answers at "
        "ROS_MASTER_URI (within 1 s), the ROS 1 graph's topics with their type, publishers and "
        "subscribers.",
    )
    p.add_argument("-t", "--show-types", action="store_true", help="show each topic's type")
    p.add_argument(
        "-c", "--count-topics", action="store_true", help="only print the number of topics"
    )
    p.add_argument(
        "-a",
        "--include-hidden-topics",
        action="store_true",
        help="also list hidden topics (service plumbing, names with a '_' token)",
    )
    p.add_argument("--no-ros1", action="store_true", help="do not ask the ROS 1 master")
    add_format(p)
    p.set_defaults(func=cmd_list)

    p = verbs.add_parser(
        "info",
        help="print a topic's type and endpoints",
        description="Print a topic's type, publisher and subscription counts.",
    )
    p.add_argument("topic_name", help="topic name, e.g. /chatter").completer = topic_completer
    p.add_argument(
        "-v", "--verbose", action="store_true", help="list every endpoint with its node and QoS"
    )
    add_format(p)
    p.set_defaults(func=cmd_info)

    p = verbs.add_parser(
        "echo",
        help="print messages of a topic",
        description="Print messages as they arrive: arrays as dtype, shape and data; messages of "
        "a ROS 2 type (CDR, from baton's ros2 layer or rclpy's type identity) field by field as "
        "`ros2 topic echo` does, with the type's .msg found on AMENT_PREFIX_PATH; anything else "
        "(e.g. a C++ struct) as text or hex bytes.",
    )
    _add_sub_args(p)
    p.add_argument("--once", action="store_true", help="print one message and exit")
    p.add_argument("-n", "--times", type=int, default=0, help="exit after N messages")
    p.add_argument(
        "--timeout",
        type=float,
        default=0.0,
        help="exit with status 1 if no message arrives for this many seconds",
    )
    p.add_argument("--full-length", "-f", action="store_true", help="print arrays in full")
    p.add_argument("--no-arr", action="store_true", help="print only dtype and shape of arrays")
    add_format(p)
    p.set_defaults(func=cmd_echo)

    p = verbs.add_parser(
        "hz",
        help="print a topic's publishing rate",
        description="Print the rate messages arrive at, every second.",
    )
    _add_sub_args(p)
    p.add_argument("-w", "--window", type=int, default=10000, help="window size in messages")
    p.add_argument("--duration", type=float, default=0.0, help="stop after this many seconds")
    add_format(p)
    p.set_defaults(func=cmd_hz)

    p = verbs.add_parser(
        "bw",
        help="print a topic's bandwidth",
        description="Print the bandwidth a topic uses, every second.",
    )
    _add_sub_args(p)
    p.add_argument("-w", "--window", type=int, default=100, help="window size in messages")
    p.add_argument("--duration", type=float, default=0.0, help="stop after this many seconds")
    add_format(p)
    p.set_defaults(func=cmd_bw)

    p = verbs.add_parser(
        "delay",
        help="print the delay from publish to receive",
        description="Print the delay between a message's publish stamp and its "
        "arrival (messages published by baton's Python API).",
    )
    _add_sub_args(p)
    p.add_argument("-w", "--window", type=int, default=10000, help="window size in messages")
    p.add_argument("--duration", type=float, default=0.0, help="stop after this many seconds")
    add_format(p)
    p.set_defaults(func=cmd_delay)

    p = verbs.add_parser(
        "pub",
        help="publish messages to a topic",
        description="Publish a message (a string, or an array with --dtype) at a "
        "rate, as ros2 topic pub.",
    )
    p.add_argument("topic_name", help="topic name").completer = topic_completer
    p.add_argument(
        "values",
        nargs="?",
        default="",
        help="the message: text for byte topics; a JSON list for arrays (e.g. '[[1,2],[3,4]]')",
    )
    p.add_argument("--dtype", help="publish arrays of this numpy dtype (e.g. float32)")
    p.add_argument("--shape", help="array shape, e.g. 480,640,3 (with --fill)")
    p.add_argument("--fill", type=float, help="fill an array of --shape with this value")
    p.add_argument("--hex", action="store_true", help="values are hex bytes (byte topics)")
    p.add_argument("--type-name", help="message type name (default: the topic's, or baton's)")
    p.add_argument(
        "-r", "--rate", type=float, default=1.0, help="publishing rate in Hz (default 1)"
    )
    p.add_argument("-1", "--once", action="store_true", help="publish one message and exit")
    p.add_argument("-t", "--times", type=int, default=0, help="publish N messages and exit")
    p.add_argument(
        "-w",
        "--wait-matching-subscriptions",
        type=int,
        default=None,
        help="wait for N subscriptions first (default 1 with --once/--times, else 0)",
    )
    p.add_argument(
        "--max-wait-time-secs",
        type=float,
        default=5.0,
        help="longest wait for matching subscriptions",
    )
    p.add_argument(
        "--keep-alive",
        type=float,
        default=0.1,
        help="seconds to keep the publisher after the last message (unread messages "
        "go with it; default 0.1)",
    )
    p.add_argument("--qos-depth", type=int, default=10, help="keep-last depth")
    p.add_argument("--qos-reliability", choices=("reliable", "best_effort"), default="reliable")
    p.add_argument("--qos-durability", choices=("volatile", "transient_local"), default="volatile")
    add_format(p)
    p.set_defaults(func=cmd_pub)


def _add_sub_args(p: Any) -> None:
    p.add_argument("topic_name", help="topic name, e.g. /chatter").completer = topic_completer
    p.add_argument("--qos-depth", type=int, default=10, help="keep-last depth (default 10)")
    p.add_argument(
        "--qos-reliability",
        choices=("reliable", "best_effort"),
        default="best_effort",
        help="best_effort (default: never slows the publisher down) or reliable",
    )
    p.add_argument("--qos-durability", choices=("volatile", "transient_local"), default="volatile")
    p.add_argument(
        "--wait",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="wait this long for the topic to appear (default: fail at once)",
    )


def _qos(args: Any) -> Any:
    import baton

    q = baton.QoS(args.qos_depth)
    q = q.best_effort() if args.qos_reliability == "best_effort" else q.reliable()
    if args.qos_durability == "transient_local":
        q.transient_local()
    return q


def _node(suffix: str) -> Any:
    import os

    import baton

    return baton.Node(cli_context(), f"_baton_cli_{suffix}_{os.getpid()}")


def _subscribe(args: Any, suffix: str) -> Any:
    node = _node(suffix)
    topic = node.resolve(args.topic_name)
    sub = node.subscription(topic).qos(_qos(args)).discovery_timeout(args.wait).create()
    return node, sub


# --- list / info --------------------------------------------------------------------------------


def _topics(args: Any) -> list[dict]:
    topics = snapshot()["topics"]
    if not getattr(args, "include_hidden_topics", False):
        topics = [t for t in topics if not is_hidden(t["name"])]
    return topics


def _ros1_topics(args: Any) -> list[dict]:
    """The ROS 1 master's topics as list entries ("graph": "ros1"), or [] when ROS_MASTER_URI is
    unset; a master that does not answer is a note on stderr, not an error."""
    if args.no_ros1:
        return []
    uri, topics, why = ros1_master.topics()
    if why:
        print(f"note: ROS 1 topics not listed: {why}", file=sys.stderr)
    return [
        {
            "name": t["name"],
            "types": [t["type"]] if t["type"] else [],
            "graph": "ros1",
            "master_uri": uri,
            "publishers": t["publishers"],
            "subscribers": t["subscribers"],
        }
        for t in topics
    ]


def _ros1_line(t: dict) -> str:
    def nodes(names: list[str]) -> str:
        return ", ".join(names) if names else "-"

    return (
        f"{t['name']} [{', '.join(t['types']) or '?'}] (ROS 1; publishers: "
        f"{nodes(t['publishers'])}; subscribers: {nodes(t['subscribers'])})"
    )


def cmd_list(args: Any) -> int:
    topics = _topics(args)
    ros1_topics = _ros1_topics(args)
    if args.format == "json":
        every = topics + ros1_topics
        emit_json(len(every) if args.count_topics else every)
        return 0
    if args.count_topics:
        print(len(topics) + len(ros1_topics))
        return 0
    for t in topics:
        print(f"{t['name']} [{', '.join(t['types'])}]" if args.show_types else t["name"])
    for t in ros1_topics:
        print(_ros1_line(t))
    return 0


def _endpoints(name: str) -> list[dict]:
    return [
        e
        for e in snapshot()["endpoints"]
        if e["name"] == name and e["kind"] in ("publisher", "subscription")
    ]


def _resolve(name: str) -> str:
    import baton

    r = baton._baton.resolve_topic_name(name, "/", "")
    if not r:
        raise baton.InvalidNameError(f"'{name}' is not a valid topic name")
    return r


def cmd_info(args: Any) -> int:
    import baton

    name = _resolve(args.topic_name)
    eps = _endpoints(name)
    if not eps:
        raise baton.TopicNotFoundError(f"unknown topic '{name}'")
    types = sorted({e["type"] for e in eps})
    pubs = [e for e in eps if e["kind"] == "publisher"]
    subs = [e for e in eps if e["kind"] == "subscription"]
    if args.format == "json":
        emit_json(
            {
                "name": name,
                "types": types,
                "publisher_count": len(pubs),
                "subscription_count": len(subs),
                "endpoints": eps if args.verbose else None,
            }
        )
        return 0
    print(f"Type: {', '.join(types)}")
    print()
    print(f"Publisher count: {len(pubs)}")
    print()
    if args.verbose:
        for e in pubs:
            _print_endpoint(e)
    print(f"Subscription count: {len(subs)}")
    if args.verbose:
        print()
        for e in subs:
            _print_endpoint(e)
    if len(types) > 1:
        print(
            f"\nwarning: endpoints of {len(types)} types on one topic (a type conflict)",
            file=sys.stderr,
        )
    return 0


def _print_endpoint(e: dict) -> None:
    node = e["node"] or "_UNKNOWN"
    ns, _, nm = node.rpartition("/")
    print(f"Node name: {nm}")
    print(f"Node namespace: {ns or '/'}")
    print(f"Topic type: {e['type']}")
    print(f"Topic type hash: {e['type_hash'][:16]}")
    print(f"Endpoint type: {e['kind'].upper()}")
    print(f"Process id: {e['pid']}")
    print("QoS profile:")
    print(f"  Reliability: {e['reliability'].upper()}")
    print(f"  History (Depth): KEEP_LAST ({e['depth']})")
    print(f"  Durability: {e['durability'].upper()}")
    print()


# --- echo ---------------------------------------------------------------------------------------


def _as_text(raw: bytes) -> Optional[str]:
    """The bytes as text if they are printable UTF-8 (a string message), else None (hex)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text if all(c.isprintable() or c in "\n\t\r" for c in text) else None


def _message_dict(s: Any, args: Any) -> dict:
    d: dict[str, Any] = {"sequence": s.sequence}
    if s.is_array:
        a = s.array
        d.update({"dtype": str(a.dtype), "shape": list(a.shape)})
        if s.stamp_ns:
            d["stamp"] = {"sec": s.stamp_ns // 1_000_000_000, "nanosec": s.stamp_ns % 1_000_000_000}
        if not args.no_arr:
            limit = None if args.full_length else 128
            flat = a.reshape(-1)
            data = flat[:limit].tolist() if limit is not None else a.tolist()
            if limit is not None:
                d["data"] = data if flat.size <= limit else data + ["..."]
                if a.ndim > 1 and flat.size <= limit:
                    d["data"] = a.tolist()
            else:
                d["data"] = data
    else:
        raw = s.tobytes()
        d["size"] = len(raw)
        text = _as_text(raw)
        if text is not None:
            d["data"] = text
        else:
            shown = raw if args.full_length else raw[:128]
            d["data_hex"] = shown.hex() + ("" if len(shown) == len(raw) else "...")
    return d


def _ros2_type(topic: str) -> Optional[str]:
    """The topic's ROS 2 type if its messages are CDR (a topic of baton's ros2 layer or rclpy's
    type identity), else None: a C++ struct topic of the same type name has another hash."""
    import baton

    from .. import _baton

    try:
        type_name, type_hash = baton.topic_type(topic, cli_context())
    except baton.BatonError:
        return None
    if type_name.count("/") != 2 or type_hash != _baton.ros2_topic_hash(type_name):
        return None
    return type_name


def _ros2_message(s: Any, ros2_type: Optional[str], args: Any) -> Optional[dict]:
    """The message decoded from CDR, or None (not CDR, type not on AMENT_PREFIX_PATH, or the
    bytes do not decode: then the message is shown as bytes, and why once on stderr)."""
    if ros2_type is None or s.is_array:
        return None
    from .. import _baton
    from ..errors import BatonError

    raw = s.tobytes()
    if raw[:2] != b"\x00\x01":  # CDR little-endian encapsulation
        return None
    try:
        return _baton.ros2_decode(ros2_type, raw)
    except BatonError as e:
        if not getattr(args, "_ros2_warned", False):
            args._ros2_warned = True
            print(f"note: shown as bytes: {e.detail}", file=sys.stderr)
            print("hint: put the type's package on AMENT_PREFIX_PATH", file=sys.stderr)
        return None


def _print_message(s: Any, args: Any, ros2_type: Optional[str] = None) -> None:
    decoded = _ros2_message(s, ros2_type, args)
    if args.format == "json":
        if decoded is not None:
            emit_json_line({"sequence": s.sequence, "type": ros2_type, "message": decoded})
        else:
            emit_json_line(_message_dict(s, args))
        return
    if decoded is not None:  # as ros2 topic echo prints it
        print("\n".join(ros2_yaml.lines(decoded, args.full_length)))
    elif s.is_array:
        a = s.array
        print(f"sequence: {s.sequence}")
        if s.stamp_ns:
            print("stamp:")
            print(f"  sec: {s.stamp_ns // 1_000_000_000}")
            print(f"  nanosec: {s.stamp_ns % 1_000_000_000}")
        print(f"dtype: {a.dtype}")
        print(f"shape: {list(a.shape)}")
        if args.no_arr:
            print(f"data: '<array of {a.size} elements>'")
        else:
            threshold = sys.maxsize if args.full_length else 128
            text = np.array2string(a, threshold=threshold, separator=", ", max_line_width=100)
            print("data: " + text.replace("\n", "\n      "))
    else:
        raw = s.tobytes()
        print(f"sequence: {s.sequence}")
        text = _as_text(raw)
        if text is not None:
            print(f"data: {json.dumps(text)}")
        else:
            shown = raw if args.full_length else raw[:128]
            print(f"size: {len(raw)}")
            print(f"data: {shown.hex(' ')}{'' if len(shown) == len(raw) else ' ...'}")
    print("---", flush=True)


def cmd_echo(args: Any) -> int:
    _node_, sub = _subscribe(args, "echo")
    ros2_type = _ros2_type(sub.topic_name)
    wanted = 1 if args.once else args.times
    got = 0
    last = time.monotonic()
    while wanted == 0 or got < wanted:
        s = sub.take(timeout=0.2)
        if s is None:
            if args.timeout and time.monotonic() - last > args.timeout:
                print(f"no message on '{sub.topic_name}' for {args.timeout:g} s", file=sys.stderr)
                return 1
            continue
        with s:
            _print_message(s, args, ros2_type)
        got += 1
        last = time.monotonic()
    return 0


# --- hz / bw / delay ----------------------------------------------------------------------------


def _stats(xs: list[float]) -> tuple[float, float, float, float]:
    mean = sum(xs) / len(xs)
    std = math.sqrt(sum((x - mean) ** 2 for x in xs) / len(xs))
    return mean, min(xs), max(xs), std


def _receive_loop(args: Any, suffix: str, on_message: Any, report: Any) -> int:
    _node_, sub = _subscribe(args, suffix)
    if args.format == "table" and suffix == "bw":
        print(f"Subscribed to [{sub.topic_name}]", flush=True)
    start = next_report = time.monotonic()
    next_report += 1.0
    while True:
        s = sub.take(timeout=0.05)
        now = time.monotonic()
        if s is not None:
            with s:
                on_message(s, now)
        if now >= next_report:
            report(sub.topic_name)
            next_report = now + 1.0
        if args.duration and now - start >= args.duration:
            return 0


def cmd_hz(args: Any) -> int:
    stamps: list[float] = []

    def on_message(_s: Any, now: float) -> None:
        stamps.append(now)
        if len(stamps) > args.window + 1:
            del stamps[0]

    def report(topic: str) -> None:
        if len(stamps) < 2:
            if args.format == "table":
                print(
                    f"WARNING: no new messages on {topic}"
                    if stamps
                    else f"waiting for messages on {topic}",
                    flush=True,
                )
            return
        gaps = [b - a for a, b in zip(stamps, stamps[1:])]
        mean, lo, hi, std = _stats(gaps)
        if args.format == "json":
            emit_json_line(
                {
                    "topic": topic,
                    "average_rate": 1.0 / mean,
                    "min": lo,
                    "max": hi,
                    "std_dev": std,
                    "window": len(stamps),
                }
            )
        else:
            print(
                f"average rate: {1.0 / mean:.3f}\n\tmin: {lo:.3f}s max: {hi:.3f}s "
                f"std dev: {std:.5f}s window: {len(stamps)}",
                flush=True,
            )

    return _receive_loop(args, "hz", on_message, report)


def cmd_bw(args: Any) -> int:
    seen: list[tuple[float, int]] = []

    def on_message(s: Any, now: float) -> None:
        seen.append((now, s.size))
        if len(seen) > args.window:
            del seen[0]

    def report(topic: str) -> None:
        if len(seen) < 2:
            return
        span = max(seen[-1][0] - seen[0][0], 1e-9)
        sizes = [n for _, n in seen]
        rate = sum(sizes[1:]) / span
        if args.format == "json":
            emit_json_line(
                {
                    "topic": topic,
                    "bytes_per_second": rate,
                    "messages": len(seen),
                    "size_mean": sum(sizes) / len(sizes),
                    "size_min": min(sizes),
                    "size_max": max(sizes),
                }
            )
        else:
            print(
                f"{human_bytes(rate)}/s from {len(seen)} messages\n\tMessage size mean: "
                f"{human_bytes(sum(sizes) / len(sizes))} min: {human_bytes(min(sizes))} "
                f"max: {human_bytes(max(sizes))}",
                flush=True,
            )

    return _receive_loop(args, "bw", on_message, report)


def cmd_delay(args: Any) -> int:
    import baton

    delays: list[float] = []
    unstamped = [0]

    def on_message(s: Any, _now: float) -> None:
        if not s.stamp_ns:
            unstamped[0] += 1
            return
        delays.append((time.time_ns() - s.stamp_ns) / 1e9)
        if len(delays) > args.window:
            del delays[0]

    def report(topic: str) -> None:
        if not delays:
            if unstamped[0]:
                raise baton.BatonError(
                    f"messages on '{topic}' carry no publish stamp",
                    code="NoStamp",
                    hint="only array messages published by baton's Python API are stamped",
                )
            return
        mean, lo, hi, std = _stats(delays)
        if args.format == "json":
            emit_json_line(
                {
                    "topic": topic,
                    "average_delay": mean,
                    "min": lo,
                    "max": hi,
                    "std_dev": std,
                    "window": len(delays),
                }
            )
        else:
            print(
                f"average delay: {mean:.6f}\n\tmin: {lo:.6f}s max: {hi:.6f}s "
                f"std dev: {std:.6f}s window: {len(delays)}",
                flush=True,
            )

    return _receive_loop(args, "delay", on_message, report)


# --- pub ----------------------------------------------------------------------------------------


def _existing_type(topic: str) -> Optional[tuple[str, str]]:
    import baton

    try:
        return baton.topic_type(topic, cli_context())
    except baton.TopicNotFoundError:
        return None


def cmd_pub(args: Any) -> int:
    import baton

    node = _node("pub")
    topic = node.resolve(args.topic_name)
    q = baton.QoS(args.qos_depth)
    q = q.best_effort() if args.qos_reliability == "best_effort" else q.reliable()
    if args.qos_durability == "transient_local":
        q.transient_local()
    existing = _existing_type(topic)
    dtype = args.dtype
    if dtype is None and existing and existing[0].startswith(baton.ARRAY_TYPE_PREFIX + "["):
        dtype = existing[0][len(baton.ARRAY_TYPE_PREFIX) + 1 : -1]
    if dtype is not None:
        try:
            dt = np.dtype(dtype)
        except TypeError:
            raise baton.TypeMismatchError(f"'{dtype}' is not a numpy dtype") from None
        if args.fill is not None:
            shape = tuple(int(x) for x in (args.shape or "1").split(",") if x)
            msg = np.full(shape, args.fill, dtype=dt)
        else:
            try:
                msg = np.asarray(json.loads(args.values or "[]"), dtype=dt)
            except (ValueError, TypeError) as e:
                raise baton.BatonError(
                    f"cannot parse {args.values!r} as a {dt} array: {e}",
                    code="BadValue",
                    hint="pass a JSON list, e.g. '[1, 2, 3]'",
                ) from None
            if args.shape:
                msg = msg.reshape(tuple(int(x) for x in args.shape.split(",")))
        pub = node.publisher(topic, dt, msg.shape, type_name=args.type_name).qos(q).create()
    else:
        if args.hex:
            msg = bytes.fromhex(args.values)
        else:
            msg = args.values.encode()
        if existing and not args.type_name:
            native = baton._baton.create_publisher(
                node._node, topic, existing[0], "", existing[1], q, False, 0, 0, [], 0
            )
            pub = baton.Publisher(native, None, existing[0])
        else:
            pub = node.raw_publisher(topic, args.type_name or "baton/msg/Bytes").qos(q).create()

    times = 1 if args.once else args.times
    wait_n = args.wait_matching_subscriptions
    if wait_n is None:
        wait_n = 1 if times else 0
    if wait_n:
        deadline = time.monotonic() + args.max_wait_time_secs
        if args.format == "table":
            print(f"Waiting for at least {wait_n} matching subscription(s)...", flush=True)
        while pub.subscription_count < wait_n and time.monotonic() < deadline:
            time.sleep(0.01)
    if args.format == "table":
        print("publisher: beginning loop", flush=True)
    period = 1.0 / args.rate if args.rate > 0 else 0.0
    n = 0
    next_t = time.monotonic()
    shown = msg if not isinstance(msg, bytes) else msg.decode(errors="replace")
    while times == 0 or n < times:
        pub.publish(msg)
        n += 1
        if args.format == "json":
            emit_json_line({"count": n, "topic": topic, "subscriptions": pub.subscription_count})
        else:
            print(
                f"publishing #{n}: {shown!r}"
                if isinstance(shown, str)
                else f"publishing #{n}: dtype={msg.dtype} shape={list(msg.shape)}",
                flush=True,
            )
        if times and n >= times:
            break
        next_t += period
        delay = next_t - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    time.sleep(max(0.0, args.keep_alive))  # unread messages die with the publisher
    return 0
