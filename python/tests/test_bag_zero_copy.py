"""baton bag's fast path for large messages: unchunked bags (`--no-chunks`) whose messages go
from the publisher's shared memory to the file in one writev with no copy (counted here), what
third-party readers make of such a bag, and the recorder's queue (held loans, then a copy
cache, then losses) that lets a writer fall behind for a while."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest
from test_bag import ament, ros2_messages, shm_ranges, typestore  # noqa: F401  (fixture)

import baton
from baton.bag import Reader, Recorder, Writer, zero_copy
from baton.bag.record_queue import HELD_SAMPLES, RecordQueue

from conftest import run_cli, wait_for

SHAPE = (256, 512, 3)  # 384 KiB frames: above zero_copy.BORROW_MIN


def address(buf) -> int:
    return np.frombuffer(buf, np.uint8).__array_interface__["data"][0]


def test_unchunked_recording_writes_each_frame_from_shared_memory_in_one_writev(
    ctx, tmp_path, monkeypatch
):
    calls: list[list[tuple[int, int]]] = []  # per writev: (address, bytes) of each iovec
    real_writev = zero_copy.os.writev

    def writev(fd, bufs):
        calls.append([(address(b), memoryview(b).nbytes) for b in bufs])
        return real_writev(fd, bufs)

    monkeypatch.setattr(zero_copy.os, "writev", writev)
    node = baton.Node(ctx, "camera")
    pub = node.publisher("/cam", np.uint8, SHAPE).create()
    writer = Writer(tmp_path / "cam.mcap", compression="none", chunked=False)
    rec = Recorder(writer, topics=["/cam"], context=ctx)
    assert rec.discover() == ["/cam"]
    frames, before = 5, len(calls)
    for i in range(frames):
        with pub.loan() as a:
            a[:] = i + 1
        n = writer.message_count
        assert wait_for(lambda n=n: (rec.spin_once(0.2), writer.message_count > n)[1], 10)
    writes = calls[before:]
    ranges = shm_ranges()
    rec.close()
    nbytes = 128 + int(np.prod(SHAPE))  # NDArray header + pixels
    # The first message also writes its channel and schema; then one writev per message, and
    # in each the message's bytes are one iovec pointing into the publisher's shared memory.
    framed = [w for w in writes if any(size == nbytes for _a, size in w)]
    assert len(framed) == frames and len(writes) <= frames + 1
    for w in framed:
        addr = next(a for a, size in w if size == nbytes)
        assert any(lo <= addr < hi for lo, hi in ranges)
    for w in framed[1:]:
        assert sum(size for _a, size in w) < nbytes + 64  # + the record header, nothing more
    got = [m.data for m in Reader(tmp_path / "cam.mcap").messages()]
    assert [g[128] for g in got] == [i + 1 for i in range(frames)]


def test_chunked_writer_sends_the_finished_chunk_without_copying_it_again(tmp_path, monkeypatch):
    sizes: list[list[int]] = []
    real_writev = zero_copy.os.writev
    monkeypatch.setattr(
        zero_copy.os,
        "writev",
        lambda fd, bufs: (
            sizes.append([memoryview(b).nbytes for b in bufs]),
            real_writev(fd, bufs),
        )[1],  # fmt: skip
    )
    w = Writer(tmp_path / "c.mcap", compression="none", chunk_size=1 << 20)
    w.add_topic("/b", "baton/msg/Bytes", "ab", kind="native")
    frame = np.full(3 << 20, 7, np.uint8)
    w.write("/b", frame, log_time=1)
    # The chunk (> the chunk size: finished at once) is one iovec of the writev, by reference
    assert any(s > frame.nbytes for batch in sizes for s in batch)
    assert w._fd.borrowed >= 1
    w.close()
    assert bytes(next(Reader(tmp_path / "c.mcap").messages()).data) == frame.tobytes()


def unchunked_bag(path: Path, count: int = 6) -> list[bytes]:
    w = Writer(path, compression="none", chunked=False)
    w.add_topic("/big", "baton/msg/Bytes", "ab", kind="native")
    w.add_topic("/small", "baton/msg/Bytes", "ab", kind="native")
    out = []
    for i in range(count):
        big = bytes([i]) * (100_000 + i)
        w.write("/big", big, log_time=1000 + 2 * i)
        w.write("/small", bytes([i]) * 10, log_time=1001 + 2 * i)
        out += [big, bytes([i]) * 10]
    w.close()
    return out


def test_unchunked_bag_is_valid_for_the_mcap_reader_and_reads_in_order(tmp_path):
    from mcap.reader import make_reader

    sent = unchunked_bag(tmp_path / "u.mcap")
    with open(tmp_path / "u.mcap", "rb") as f:
        reader = make_reader(f, validate_crcs=True)
        summary = reader.get_summary()
        got = [m.data for _s, _c, m in reader.iter_messages(log_time_order=False)]
    assert got == sent
    assert summary.statistics.message_count == len(sent) and summary.statistics.chunk_count == 0
    assert summary.chunk_indexes == []
    r = Reader(tmp_path / "u.mcap")
    assert r.complete and r.info()["chunks"] == 0 and r.info()["messages"] == len(sent)
    assert [m.data for m in r.messages()] == sent
    assert [m.data for m in r.messages(topics=["/small"], start_time=1005)] == sent[5::2]


def test_unchunked_bag_cut_short_reads_up_to_its_last_complete_message(tmp_path):
    sent = unchunked_bag(tmp_path / "u.mcap")
    data = (tmp_path / "u.mcap").read_bytes()
    cut = tmp_path / "cut.mcap"
    cut.write_bytes(data[: data.index(sent[6]) + 5000])  # inside the 4th large message
    r = Reader(cut)
    assert not r.complete and "cut short" in r.ends
    assert [m.data for m in r.messages()] == sent[:6]


def test_rosbags_reads_an_unchunked_bag_of_ros2_messages(ctx, ament, tmp_path):  # noqa: F811
    from rosbags.highlevel import AnyReader

    ts = typestore()
    images = ros2_messages(ts)["/image"]
    w = Writer(tmp_path / "ros.mcap", compression="none", chunked=False)
    w.add_topic(
        "/image", "sensor_msgs/msg/Image", baton._baton.ros2_topic_hash("sensor_msgs/msg/Image")
    )
    for i, m in enumerate(images):
        w.write("/image", ts.serialize_cdr(m, "sensor_msgs/msg/Image"), log_time=1000 + i)
    w.close()
    with AnyReader([tmp_path / "ros.mcap"]) as reader:
        got = [reader.deserialize(raw, c.msgtype) for c, _t, raw in reader.messages()]
    assert len(got) == len(images)
    for a, b in zip(got, images, strict=True):
        assert (a.height, a.width, a.encoding) == (b.height, b.width, b.encoding)
        assert np.array_equal(a.data, b.data)


def test_unchunked_writer_refuses_compression(tmp_path):
    with pytest.raises(ValueError, match="needs chunks"):
        Writer(tmp_path / "x.mcap", compression="zstd", chunked=False)


def test_cli_no_chunks_with_compression_is_a_clear_error(ns, tmp_path):
    r = run_cli(
        "bag", "record", "/t", "--no-chunks", "--compression", "lz4", "-o", str(tmp_path / "x.mcap")
    )
    assert r.returncode == 1 and "--no-chunks" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "x.mcap").exists()


# --- the recorder's queue ----------------------------------------------------------------------


class FakeSample:
    """What the queue uses of a taken sample: its bytes, sequence and loan."""

    def __init__(self, seq: int, size: int = 1000):
        self.array = np.full(size, seq % 256, np.uint8)
        self.sequence = seq
        self.released = False

    def release(self) -> None:
        self.released = True


def test_queue_holds_loans_then_copies_into_the_cache_in_order():
    q = RecordQueue(cache_bytes=3 * 1000)
    samples = [FakeSample(i) for i in range(HELD_SAMPLES + 3)]
    for s in samples:
        assert q.put("/t", s.sequence, s)
    held, copied = samples[:HELD_SAMPLES], samples[HELD_SAMPLES:]
    assert not any(s.released for s in held)  # no copy: the loans are kept
    assert all(s.released for s in copied) and q.copied["/t"] == 3  # copied, loan returned
    out = [q.get(0) for _ in samples]
    assert [i.sequence for i in out] == [s.sequence for s in samples]
    assert all(bytes(i.view()) == s.array.tobytes() for i, s in zip(out, samples, strict=True))
    for item in out:
        q.written(item)
    assert all(s.released for s in held)


def test_queue_waits_when_full_and_a_failed_writer_releases_everything():
    q = RecordQueue(cache_bytes=0)
    held = [FakeSample(i) for i in range(HELD_SAMPLES)]
    for s in held:
        assert q.put("/t", 0, s)
    late = FakeSample(99)
    result: list[bool] = []
    t = threading.Thread(target=lambda: result.append(q.put("/t", 0, late)))
    t.start()  # nothing may be held or cached: it waits for the writer
    q.fail(RuntimeError("disk full"))
    t.join(10)
    assert result == [False] and late.released and all(s.released for s in held)
    assert q.get(0) is None


def test_queue_close_lets_the_writer_finish_what_is_queued():
    q = RecordQueue(cache_bytes=0)
    s = FakeSample(1)
    q.put("/t", 0, s)
    q.close()
    assert not q.closed_and_empty
    item = q.get(0)
    q.written(item)
    assert q.closed_and_empty and s.released and q.get(0) is None


def test_small_messages_are_written_on_the_taking_thread_only_behind_nothing(ctx, tmp_path):
    """A small message that finds the writer thread idle is written by the thread that took it
    (no hand-over); a large one always goes to the writer thread, and small ones that come while
    it is queued or being written wait behind it: the bag keeps the order they were published in.
    """
    node = baton.Node(ctx, "talker")
    pub = node.raw_publisher("/mixed").qos(baton.QoS(16)).create()
    writer = Writer(tmp_path / "mixed.mcap")
    threads: list[tuple[bytes, str]] = []  # (first byte, thread that wrote it); no view kept
    rec = Recorder(
        writer, topics=["/mixed"], context=ctx, flush_period=3600.0,  # no flush takes the lock
        on_write=lambda t, v: threads.append((bytes(v[:1]), threading.current_thread().name)),
    )  # fmt: skip
    assert rec.discover() == ["/mixed"]

    def spin_until(count: int) -> None:  # back to back: each take right after the previous
        deadline = time.monotonic() + 30
        while writer.message_count < count and time.monotonic() < deadline:
            rec.spin_once(0.2)
        assert writer.message_count == count, rec.stats()

    published = [b"a" * 10]
    pub.publish(published[0])
    spin_until(1)
    assert threads == [(b"a", threading.current_thread().name)]  # inline: the writer was idle
    later = [b"B" * (1 << 20), b"c" * 10, b"d" * 10, b"E" * (2 << 20), b"f" * 10, b"g" * 10]
    for m in later:
        pub.publish(m)  # all at once: the small ones find the large ones queued or in hand
    published += later
    spin_until(len(published))
    rec.close()
    assert [m.data for m in Reader(tmp_path / "mixed.mcap").messages()] == published
    assert [b for b, _ in threads] == [m[:1] for m in published]
    assert {t for b, t in threads if b in (b"B", b"E")} == {"baton-bag-writer"}


def test_writer_says_which_write_would_finish_a_chunk_or_a_file(tmp_path):
    """Recorder._write_inline leaves such writes to the writer thread (they compress and write
    out: milliseconds), so it asks first."""
    w = Writer(tmp_path / "q.mcap", compression="zstd", chunk_size=4096, split_duration=10.0)
    w.add_topic("/q", "baton/msg/Bytes", "", {"depth": 10}, kind="native")
    t = 1_000_000_000
    assert w.write_is_quick(100, t)
    while w.write_is_quick(100, t):
        w.write("/q", b"x" * 100, t)
    assert 20 <= w.message_count <= 40  # ~130 bytes a record: the next one would pass 4096
    assert w.write_is_quick(10, t)  # a smaller one still fits
    w.flush()  # the chunk is written out: a fresh one
    assert w.write_is_quick(100, t)
    assert not w.write_is_quick(100, t + 10_000_000_000)  # due to split the file
    w.close()
    assert len(Reader(w.paths[0]).topics) == 1
