"""`baton bag play`'s `--start-offset` and `--loop` (Player(start_offset=, loop=)): which messages
go out, in which order. (`--rate` and `--remap`: test_bag.py's round trips; timing: bench/bag.)"""

from __future__ import annotations

import threading

import baton
from baton import _baton
from baton.bag import Player, Writer

BYTES = "baton/msg/Bytes"
COUNT = 10
STEP_NS = 1_000_000  # recorded 1 ms apart


def ten_message_bag(path):
    w = Writer(path)
    w.add_topic("/b", BYTES, _baton.topic_type_hash(BYTES), {"depth": 5})
    for i in range(COUNT):
        w.write("/b", bytes([i]) * 8, log_time=1_000_000_000 + i * STEP_NS)
    w.close()


def listener(ctx):
    node = baton.Node(ctx, "listener")
    return node.raw_subscription("/b", BYTES).qos(baton.QoS(100)).create()


def received(sub, n: int) -> list[int]:
    got = []
    for _ in range(n):
        s = sub.take(timeout=10.0)
        assert s is not None, got
        got.append(s.tobytes()[0])
        s.release()
    return got


def test_start_offset_plays_from_that_far_into_the_bag(ctx, tmp_path):
    ten_message_bag(tmp_path / "b.mcap")
    sub = listener(ctx)
    player = Player(tmp_path / "b.mcap", context=ctx, start_offset=4.5 * STEP_NS / 1e9)
    assert player.run() == {"/b": 5}
    assert received(sub, 5) == [5, 6, 7, 8, 9]
    assert sub.take(timeout=0.0) is None


def test_loop_plays_the_bag_again_until_stopped(ctx, tmp_path):
    ten_message_bag(tmp_path / "b.mcap")
    sub = listener(ctx)
    player = Player(tmp_path / "b.mcap", context=ctx, loop=True, rate=10.0)
    stop = threading.Event()
    playing = threading.Thread(target=player.run, args=(stop,))
    playing.start()
    try:
        got = received(sub, 2 * COUNT + 3)
    finally:
        stop.set()
        playing.join(30)
    assert not playing.is_alive()
    assert got == list(range(COUNT)) * 2 + [0, 1, 2]
