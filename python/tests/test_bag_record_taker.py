"""The recorder's C++ taker (_baton.RecordTaker, python/src/py_record.cpp): messages taken in C++
as they arrive and handed to Python many at a time, in place (zero-copy), so that one Python
wake-up of `baton bag record` writes many messages."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from test_bag import shm_ranges

import baton
from baton import _baton
from baton.bag import Reader, Recorder, Writer

BYTES = "baton/msg/Bytes"
MAX_LOANS = _baton.defaults()["max_loans_per_subscription"]
FOREVER = 3600.0  # a take_batch that must return for another reason than its time


def recorded_topic(ctx, topic: str, depth: int = 64):
    """A raw publisher of `topic` and a RecordTaker holding a record subscription to it."""
    node = baton.Node(ctx, "talker")
    pub = node.raw_publisher(topic).qos(baton.QoS(depth)).create()
    taker = _baton.RecordTaker()
    sub = _baton.create_record_subscription(
        node._node,
        topic,
        BYTES,
        _baton.topic_type_hash(BYTES),
        baton.QoS(depth).best_effort(),
        7,
        depth,
    )
    taker.add(sub)
    return node, pub, taker, sub


def test_a_batch_holds_every_waiting_message_in_order_in_place(ctx):
    _node, pub, taker, _sub = recorded_topic(ctx, "/batch")
    sent = [bytes([i]) * (10 + i) for i in range(10)]
    for m in sent:
        pub.publish(m)
    batch = taker.take_batch(FOREVER, 0.0, 256)  # all ten were waiting: one batch
    assert [t for t, _lt, _s in batch] == [7] * len(sent)
    assert [bytes(memoryview(s)) for _t, _lt, s in batch] == sent
    log_times = [lt for _t, lt, _s in batch]
    assert log_times == sorted(log_times) and log_times[0] > 0
    ranges = shm_ranges()
    for _t, _lt, s in batch:  # each view points into the publisher's shared memory
        addr = np.frombuffer(memoryview(s), np.uint8).__array_interface__["data"][0]
        assert any(lo <= addr < hi for lo, hi in ranges)
        s.release()
    with pytest.raises(BufferError, match="released"):
        memoryview(batch[0][2])


def test_a_batch_stops_at_max_count_and_the_rest_come_next(ctx):
    _node, pub, taker, _sub = recorded_topic(ctx, "/max")
    for i in range(10):
        pub.publish(bytes([i]))
    got = []
    for _ in range(3):  # all ten wait already: no linger needed
        batch = taker.take_batch(FOREVER, 0.0, 4)
        got.append([bytes(memoryview(s)) for _t, _lt, s in batch])
        for _t, _lt, s in batch:
            s.release()
    assert [len(b) for b in got] == [4, 4, 2]
    assert sum(got, []) == [bytes([i]) for i in range(10)]


def test_a_batch_goes_as_soon_as_a_topic_holds_all_its_loans(ctx):
    """It does not linger: the publisher's ring would lap the subscription meanwhile."""
    _node, pub, taker, sub = recorded_topic(ctx, "/loans")
    for i in range(MAX_LOANS + 4):
        pub.publish(bytes([i]))
    first = taker.take_batch(FOREVER, FOREVER, 256)
    assert len(first) == MAX_LOANS
    assert taker.take_batch(FOREVER, FOREVER, 256) == []  # no loan left to take with
    for _t, _lt, s in first:
        s.release()
    rest = taker.take_batch(FOREVER, 0.0, 256)
    assert [bytes(memoryview(s)) for _t, _lt, s in rest] == [
        bytes([MAX_LOANS + i]) for i in range(4)
    ]
    assert sub.lost == 0


def test_interrupt_ends_a_waiting_batch_and_add_waits_for_the_wait_set(ctx):
    node, pub, taker, _sub = recorded_topic(ctx, "/first")
    got: list[list] = []
    waiting = threading.Thread(target=lambda: got.append(taker.take_batch(-1.0)))
    waiting.start()
    taker.interrupt()
    waiting.join(30)
    assert not waiting.is_alive() and got == [[]]
    # add() takes the wait set from a batch waiting on another thread (or runs first: the batch
    # then waits its 2 s with both topics); either way nothing deadlocks and nothing is taken
    waiting = threading.Thread(target=lambda: got.append(taker.take_batch(2.0)))
    waiting.start()
    other = node.raw_publisher("/second").create()
    sub2 = _baton.create_record_subscription(
        node._node,
        "/second",
        BYTES,
        _baton.topic_type_hash(BYTES),
        baton.QoS(8).best_effort(),
        9,
        8,
    )
    taker.add(sub2)
    waiting.join(30)
    assert not waiting.is_alive() and got[1] == []
    other.publish(b"late topic")
    batch = taker.take_batch(FOREVER, 0.0, 256)
    assert [(t, bytes(memoryview(s))) for t, _lt, s in batch] == [(9, b"late topic")]
    assert taker.remove(sub2) and not taker.remove(sub2)
    del pub


def test_one_recorder_spin_writes_every_message_that_waited(ctx, tmp_path):
    node = baton.Node(ctx, "talker")
    pub = node.raw_publisher("/burst").qos(baton.QoS(64)).create()
    writer = Writer(tmp_path / "burst.mcap")
    rec = Recorder(writer, topics=["/burst"], context=ctx, flush_period=3600.0)
    assert rec.discover() == ["/burst"]
    sent = [b"m%02d" % i for i in range(12)]
    for m in sent:
        pub.publish(m)
    assert rec.spin_once(FOREVER)  # one Python call: the whole burst
    assert writer.message_count == len(sent)
    stats = rec.close()
    assert stats["/burst"] == {"recorded": 12, "lost": 0, "copied": 0}
    assert [m.data for m in Reader(tmp_path / "burst.mcap").messages()] == sent


def test_a_fast_stream_is_recorded_whole_in_batches_of_many_messages(ctx, tmp_path):
    """A stream published while the recorder runs (from another thread, as fast as it goes)
    arrives in batches of several messages, none lost, in order. How the taker paces itself at a
    given rate (1 kHz) is measured in bench/bag/run.py, with losses reported."""
    node = baton.Node(ctx, "talker")
    pub = node.raw_publisher("/fast").qos(baton.QoS(1000)).create()
    writer = Writer(tmp_path / "fast.mcap")
    rec = Recorder(writer, topics=["/fast"], context=ctx, queue_depth=1000, flush_period=3600.0)
    assert rec.discover() == ["/fast"]
    count = 600

    def publish() -> None:
        for i in range(count):
            pub.publish(i.to_bytes(4, "little"))

    talker = threading.Thread(target=publish)
    talker.start()
    batches = 0
    while writer.message_count < count:
        if rec.spin_once(5.0):
            batches += 1
        elif not talker.is_alive():
            break  # nothing for 5 s after the last publish: what is missing never comes
    talker.join()
    stats = rec.close()
    assert stats["/fast"] == {"recorded": count, "lost": 0, "copied": stats["/fast"]["copied"]}
    got = [int.from_bytes(m.data, "little") for m in Reader(tmp_path / "fast.mcap").messages()]
    assert got == list(range(count))
    assert batches < count // 3, batches
