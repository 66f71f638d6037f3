"""``baton bag record | info | play``: MCAP bags of baton topics (as ``ros2 bag``), and of ROS 1
topics on the master at ROS_MASTER_URI (``--ros1``)."""

from __future__ import annotations

import sys
import time
from typing import Any

from ._common import (
    add_format,
    cli_context,
    emit_json,
    human_bytes,
    stop_on_interrupt_or_term,
    table,
    topic_completer,
)


def register(sub: Any) -> None:
    bag = sub.add_parser(
        "bag",
        help="record, inspect and play MCAP bags",
        description="MCAP bags of baton topics (as ros2 bag). Errors of bag files exit 10.",
    )
    verbs = bag.add_subparsers(dest="verb", metavar="VERB", required=True)

    p = verbs.add_parser(
        "record",
        help="record topics to an MCAP file",
        description="Record topics (by name, --regex or --all) to an MCAP file until Ctrl-C, "
        "--duration or --max-messages. Best-effort subscriptions: a publisher is never slowed "
        "down; messages the recorder could not keep up with are reported as lost.",
    )
    p.add_argument("topics", nargs="*", help="topic names to record").completer = topic_completer
    p.add_argument("-a", "--all", action="store_true", help="record every topic")
    p.add_argument("-e", "--regex", help="record topics whose full name matches this regex")
    p.add_argument("--include-hidden-topics", action="store_true", help="with --all / --regex")
    p.add_argument(
        "--ros1",
        nargs="+",
        default=[],
        metavar="TOPIC",
        help="also record these ROS 1 topics (from the master at ROS_MASTER_URI; encoding ros1, "
        "schema ros1msg)",
    )
    p.add_argument("--ros1-all", action="store_true", help="record every ROS 1 topic")
    p.add_argument("--ros1-regex", help="record ROS 1 topics whose full name matches this regex")
    p.add_argument("-o", "--output", help="the bag file (default: baton_<date>_<time>.mcap)")
    p.add_argument(
        "--compression",
        choices=("zstd", "lz4", "none"),
        help="chunk compression (default zstd; none with --no-chunks)",
    )
    p.add_argument(
        "--compression-level",
        type=int,
        help="lz4: default 0, negative = faster (acceleration), up to 16; zstd: default 3, "
        "negative = faster, up to 22. No level keeps up with a 4K 30 Hz camera on two cores "
        "while still compressing: record it with --no-chunks",
    )
    p.add_argument("--chunk-size", type=int, default=1 << 20, help="chunk size in bytes")
    p.add_argument(
        "--no-chunks",
        action="store_true",
        help="fastest writes (ros2 bag's fastwrite preset): no chunks, no compression, no "
        "message index; large messages go from shared memory to the file with no copy",
    )
    p.add_argument(
        "-b", "--max-bag-size", type=int, default=0, help="split: start a new file after N bytes"
    )
    p.add_argument(
        "-d",
        "--max-bag-duration",
        type=float,
        default=0.0,
        help="split: start a new file after S seconds",
    )
    p.add_argument("--duration", type=float, help="stop after this many seconds")
    p.add_argument("--max-messages", type=int, default=0, help="stop after N messages")
    p.add_argument(
        "--queue-depth", type=int, default=100, help="per-topic queue of the recorder (100)"
    )
    p.add_argument(
        "--max-cache-size",
        type=int,
        default=512 << 20,
        help="bytes of messages copied while the writer is behind, rather than lost (512 MiB)",
    )
    add_format(p)
    p.set_defaults(func=cmd_record)

    p = verbs.add_parser(
        "info",
        help="print a bag's topics, counts, duration, size",
        description="Print what a bag holds (from its summary: no scan), and how the file ends; "
        "a truncated file is read up to its last complete chunk.",
    )
    p.add_argument("bag", nargs="+", help="bag file(s)")
    add_format(p)
    p.set_defaults(func=cmd_info)

    p = verbs.add_parser(
        "play",
        help="publish a bag's messages",
        description="Publish a bag's messages through loans, with their recorded timing, type "
        "and QoS.",
    )
    p.add_argument("bag", nargs="+", help="bag file(s); the files of a split bag in order")
    p.add_argument("-r", "--rate", type=float, default=1.0, help="playback rate (default 1)")
    p.add_argument("-l", "--loop", action="store_true", help="play again and again")
    p.add_argument(
        "--start-offset", type=float, default=0.0, help="start this many seconds into the bag"
    )
    p.add_argument("--topics", nargs="+", help="play only these topics")
    p.add_argument("--remap", nargs="+", default=[], metavar="FROM:=TO", help="publish FROM on TO")
    p.add_argument(
        "--delay", type=float, default=0.0, help="wait this long after creating the publishers"
    )
    p.add_argument(
        "--wait-for-subscribers",
        action="store_true",
        help="wait until every ROS 1 topic has a subscriber (and, with --wire, every ROS 2 "
        "topic a matched DDS reader or a baton subscriber) before playing",
    )
    p.add_argument(
        "--wire",
        action="store_true",
        help="publish ROS 2 topics on the DDS wire too (ROS_DOMAIN_ID), so subscribers of other "
        "RMWs (rclpy on Fast DDS) get them; their .msg files must be on AMENT_PREFIX_PATH",
    )
    p.add_argument(
        "--realtime-priority",
        type=_fifo_priority,
        metavar="N",
        help="play in SCHED_FIFO at priority N (1..99), so messages go out at their time on a "
        "loaded machine; needs CAP_SYS_NICE or an rtprio limit (ulimit -r)",
    )
    add_format(p)
    p.set_defaults(func=cmd_play)


def _fifo_priority(text: str) -> int:
    import argparse

    from baton.realtime import check_priority

    try:
        return check_priority(int(text))
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def cmd_record(args: Any) -> int:
    import baton
    from baton.bag import Recorder, Writer
    from baton.bag.compression import check_level, keep_freed_memory

    ros1 = bool(args.ros1 or args.ros1_all or args.ros1_regex)
    if not (args.topics or args.all or args.regex or ros1):
        raise baton.BatonError(
            "nothing to record",
            code="NoTopics",
            hint="name topics, or use --all or --regex (ROS 1: --ros1 TOPIC..., --ros1-all)",
        )
    out = args.output or time.strftime("baton_%Y_%m_%d-%H_%M_%S.mcap")
    compression = args.compression or ("none" if args.no_chunks else "zstd")
    if args.no_chunks and compression != "none":
        raise baton.BatonError(
            f"--no-chunks writes no chunks, so it cannot compress ({compression})",
            code="BadOption",
            hint="drop --compression or use --compression none",
        )
    try:
        check_level(compression, args.compression_level)
    except ValueError as e:
        raise baton.BatonError(
            f"--compression-level: {e}", code="BadOption", hint="see baton bag record --help"
        ) from None
    if not args.no_chunks:
        keep_freed_memory()  # each chunk's large buffers: reused, not mapped afresh
    writer = Writer(
        out,
        compression=compression,
        compression_level=args.compression_level,
        chunk_size=args.chunk_size,
        chunked=not args.no_chunks,
        split_size=args.max_bag_size,
        split_duration=args.max_bag_duration,
        # MCAP's profile names the one ROS version of a bag (readers go by each channel anyway).
        profile="ros1" if ros1 and not (args.topics or args.all or args.regex) else "ros2",
    )
    try:
        rec = Recorder(
            writer,
            topics=args.topics,
            regex=args.regex,
            all_topics=args.all,
            include_hidden=args.include_hidden_topics,
            queue_depth=args.queue_depth,
            cache_bytes=args.max_cache_size,
            context=cli_context(),
            ros1_topics=args.ros1,
            ros1_regex=args.ros1_regex,
            ros1_all=args.ros1_all,
        )
    except BaseException:  # e.g. no ROS master for --ros1: close the file it opened
        writer.close()
        raise
    if args.format == "table":
        print(f"recording to {out}", file=sys.stderr, flush=True)
    stop_on_interrupt_or_term()  # Ctrl-C, kill -INT and SIGTERM close the bag
    error = None
    try:
        rec.run(duration=args.duration, max_messages=args.max_messages)
    except KeyboardInterrupt:
        pass
    except baton.BatonError as e:
        error = e
    stats = rec.close()
    for w in writer.warnings:
        print(f"warning: {w}", file=sys.stderr)
    lost = sum(s["lost"] for s in stats.values())
    if args.format == "json":
        emit_json({"files": [str(p) for p in writer.paths], "topics": stats, "lost": lost})
    else:
        rows = [(t, s["recorded"], s["lost"], s["copied"]) for t, s in stats.items()]
        print(table(rows, ("topic", "recorded", "lost", "copied")))
        print(f"files: {', '.join(str(p) for p in writer.paths)}")
        if lost:
            print(f"warning: {lost} messages lost (the recorder fell behind)", file=sys.stderr)
    if error is not None:
        raise error
    return 0


def _fmt_time(ns: int) -> str:
    return time.strftime("%b %d %Y %H:%M:%S", time.localtime(ns / 1e9)) + f".{ns % 10**9:09d}"


def cmd_info(args: Any) -> int:
    from baton.bag import Reader

    infos = [Reader(p).info() for p in args.bag]
    if args.format == "json":
        emit_json(infos if len(infos) > 1 else infos[0])
        return 0
    for i in infos:
        comp = ", ".join(f"{k} ({n} chunks)" for k, n in i["compression"].items()) or "none"
        print(f"Files:             {i['file']}")
        print(f"Bag size:          {human_bytes(i['size'])}")
        print(f"Storage id:        mcap ({i['library']}, profile {i['profile'] or '-'})")
        print(f"Duration:          {i['duration_s']:.9f}s")
        if i["messages"]:
            print(f"Start:             {_fmt_time(i['start_ns'])} ({i['start_ns']})")
            print(f"End:               {_fmt_time(i['end_ns'])} ({i['end_ns']})")
        print(f"Messages:          {i['messages']}")
        print(f"Chunks:            {i['chunks']}")
        print(f"Compression:       {comp}")
        print(f"Ends:              {i['ends']}")
        for n, t in enumerate(i["topics"]):
            q = t["qos"]
            qos = (
                f" | QoS: {q['reliability']}, keep_last {q['depth']}, {q['durability']}"
                if q
                else ""
            )
            head = "Topic information: " if n == 0 else " " * 19
            print(
                f"{head}Topic: {t['topic']} | Type: {t['type']} | Count: {t['count']} | "
                f"Serialization Format: {t['encoding']}{qos}"
            )
    return 0


def cmd_play(args: Any) -> int:
    import baton
    from baton.bag import Player

    remap = {}
    for r in args.remap:
        src, sep, dst = r.partition(":=")
        if not sep or not src or not dst:
            raise baton.InvalidNameError(f"remapping '{r}' is not FROM:=TO")
        remap[src] = dst
    player = Player(
        args.bag,
        topics=args.topics,
        rate=args.rate,
        loop=args.loop,
        start_offset=args.start_offset,
        remap=remap,
        context=cli_context(),
        wait_for_subscribers=args.wait_for_subscribers,
        wire=args.wire,
        realtime_priority=args.realtime_priority,
    )
    if args.delay > 0:
        time.sleep(args.delay)
    try:
        published = player.run()
    except KeyboardInterrupt:
        published = dict(player.published)
    finally:
        player.close()
    if args.format == "json":
        emit_json({"published": published})
    else:
        print(table(list(published.items()), ("topic", "published")))
    return 0
