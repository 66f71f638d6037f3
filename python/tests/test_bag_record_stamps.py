"""`baton bag record` logs a native topic's messages at their publishers' stamps: baton's
publishers stamp every message with the system clock at publish (PublisherOptions::
source_timestamps, on by default), and the recorder, which takes a 1 kHz stream in batches (up
to its 15 ms linger after publication), logs each message at that stamp, not at the take, so
`bag play` reproduces the original spacing instead of the batches' bunches."""

from __future__ import annotations

import ctypes
import threading
import time

import numpy as np
from test_bag import STRUCT_FACTS

import baton
from baton import _baton
from baton.bag import Reader, Recorder, Writer

COUNT = 300  # messages per topic
PERIOD_NS = 1_000_000  # 1 kHz
CLOCK_MONOTONIC, TIMER_ABSTIME, EINTR = 1, 1, 4
_libc = ctypes.CDLL(None, use_errno=True)


class _Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


def sleep_until(deadline_ns: int) -> None:
    """clock_nanosleep to an absolute CLOCK_MONOTONIC deadline (ctypes releases the GIL): a
    paced stream whose period does not drift with the time each publish takes."""
    ts = _Timespec(deadline_ns // 1_000_000_000, deadline_ns % 1_000_000_000)
    while _libc.clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, ctypes.byref(ts), None) == EINTR:
        pass


def test_a_native_1khz_stream_is_logged_at_its_publish_stamps(ctx, tmp_path):
    """Bytes, NDArray and C++ struct topics published together at 1 kHz (absolute deadlines)
    while the recorder runs: every message's log and publish time in the bag is the stamp a
    subscriber of the topic reads on it (Sample.source_timestamp), in the order published."""
    node = baton.Node(ctx, "talker")
    qos = baton.QoS(COUNT)
    raw = node.raw_publisher("/stamps/raw").qos(qos).create()
    arr = node.publisher("/stamps/arr", np.int32, (4,)).qos(qos).create()
    pose = baton.Publisher(
        _baton.create_publisher(
            node._node, "/stamps/pose", "demo/msg/Pose", STRUCT_FACTS, "", qos, False, 0, 0, [], 0
        ),
        None,
        "demo/msg/Pose",
    )  # a C++ BATON_MESSAGE struct's publisher, as C++ code makes it
    listener = baton.Node(ctx, "listener")
    subs = {
        "/stamps/raw": listener.raw_subscription("/stamps/raw").qos(qos).create(),
        "/stamps/arr": listener.subscription("/stamps/arr", np.int32).qos(qos).create(),
        "/stamps/pose": _baton.create_subscription(
            listener._node, "/stamps/pose", "demo/msg/Pose", STRUCT_FACTS, "", qos, True,
            "blocking", None,
        ),
    }  # fmt: skip
    writer = Writer(tmp_path / "stamps.mcap")
    rec = Recorder(
        writer, topics=list(subs), context=ctx, queue_depth=COUNT, flush_period=3600.0
    )  # fmt: skip
    assert sorted(rec.discover()) == sorted(subs)

    def publish() -> None:
        start = time.monotonic_ns() + PERIOD_NS
        for i in range(COUNT):
            sleep_until(start + i * PERIOD_NS)
            raw.publish(i.to_bytes(4, "little"))
            arr.publish(np.full(4, i, np.int32))
            pose.publish(i.to_bytes(4, "little") * 6)

    talker = threading.Thread(target=publish)
    talker.start()
    while writer.message_count < 3 * COUNT:
        if not rec.spin_once(5.0) and not talker.is_alive():
            break  # nothing for 5 s after the last publish: what is missing never comes
    talker.join()
    stats = rec.close()
    assert {t: (s["recorded"], s["lost"]) for t, s in stats.items()} == {
        t: (COUNT, 0) for t in subs
    }

    bag = Reader(tmp_path / "stamps.mcap")
    for topic, sub in subs.items():
        read = []  # (message bytes, stamp, array header stamp) as its own subscriber reads them
        for _ in range(COUNT):
            s = sub.take(timeout=10.0)
            assert s is not None, topic
            read.append((s.message_bytes(), s.source_timestamp, s.stamp_ns))
            s.release()
        stamps = [stamp for _m, stamp, _h in read]
        assert all(stamp > 0 for stamp in stamps), topic
        assert all(a < b for a, b in zip(stamps, stamps[1:])), topic
        logged = [(m.data, m.log_time, m.publish_time) for m in bag.messages([topic])]
        assert [d for d, _l, _p in logged] == [m for m, _s, _h in read], topic  # in order, equal
        assert [lt for _d, lt, _p in logged] == stamps, topic
        # publish time: an NDArray message's own header stamp (taken just before the publish,
        # the schema's stamp_ns), else the publisher's stamp
        header_stamps = [h for _m, _s, h in read]
        expected = header_stamps if topic == "/stamps/arr" else stamps
        assert all(h > 0 for h in header_stamps) == (topic == "/stamps/arr"), topic
        assert [pt for _d, _l, pt in logged] == expected, topic
