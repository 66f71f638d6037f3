"""`baton bag play --realtime-priority` / Player(realtime_priority=): the play loop's thread runs
in SCHED_FIFO while it plays (and only then), and a system that refuses real-time scheduling
gives a clear error before anything is published. (How much it helps the timing is measured in
bench/bag/run.py --play-only, not asserted here.)"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading

import pytest

import baton
from baton.bag import Player, Writer

from conftest import run_cli


def two_message_bag(path, topic: str, gap_s: float) -> None:
    w = Writer(path)
    w.add_topic(topic, "baton/msg/Bytes", "", {"depth": 10}, kind="native")
    w.write(topic, b"first", 1_000_000_000)
    w.write(topic, b"second", 1_000_000_000 + int(gap_s * 1e9))
    w.close()


def test_play_loop_runs_in_sched_fifo_and_only_while_playing(ctx, tmp_path):
    topic = "/rt_play"
    two_message_bag(tmp_path / "rt.mcap", topic, gap_s=60.0)  # stopped long before the second
    sub = baton.Node(ctx, "rt_listener").raw_subscription(topic).qos(baton.QoS(10)).create()
    player = Player(tmp_path / "rt.mcap", context=ctx, realtime_priority=7)
    stop = threading.Event()
    played: list[dict] = []
    thread = threading.Thread(target=lambda: played.append(player.run(stop)))
    thread.start()
    try:
        first = sub.take(timeout=30.0)  # the loop is now waiting for the second message's time
        assert first is not None and bytes(first.array) == b"first"
        assert os.sched_getscheduler(thread.native_id) == os.SCHED_FIFO
        assert os.sched_getparam(thread.native_id).sched_priority == 7
        assert os.sched_getscheduler(0) == os.SCHED_OTHER  # the calling test thread: unchanged
    finally:
        stop.set()
        thread.join(timeout=30)
    assert played == [{topic: 1}]
    # Played in the calling thread, it is given back its policy afterwards.
    player = Player(tmp_path / "rt.mcap", context=ctx, realtime_priority=7, start_offset=59.0)
    assert player.run() == {topic: 1}
    assert os.sched_getscheduler(0) == os.SCHED_OTHER


def test_priority_outside_sched_fifo_range_is_refused(ctx, tmp_path):
    two_message_bag(tmp_path / "r.mcap", "/rt_range", gap_s=0.01)
    with pytest.raises(ValueError, match="1..99"):
        Player(tmp_path / "r.mcap", context=ctx, realtime_priority=0)
    r = run_cli("bag", "play", str(tmp_path / "r.mcap"), "--realtime-priority", "100")
    assert r.returncode == 2 and "outside SCHED_FIFO's 1..99" in r.stderr, r.stderr


def test_cli_without_the_right_to_real_time_scheduling_is_a_clear_error(ns, tmp_path):
    """Without CAP_SYS_NICE (dropped by setpriv) and with RLIMIT_RTPRIO 0: exit 5 and a hint,
    nothing published."""
    if shutil.which("setpriv") is None:
        pytest.fail("setpriv (util-linux) is needed to drop CAP_SYS_NICE")
    two_message_bag(tmp_path / "p.mcap", "/rt_denied", gap_s=0.01)
    r = subprocess.run(
        ["setpriv", "--inh-caps=-sys_nice", "--bounding-set=-sys_nice", "prlimit", "--rtprio=0",
         sys.executable, "-m", "baton", "bag", "play", str(tmp_path / "p.mcap"),
         "--realtime-priority", "10", "--format", "json"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert r.returncode == 5, r.stderr
    assert "SCHED_FIFO priority 10" in r.stderr and "CAP_SYS_NICE" in r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""
