"""baton.bag and `baton bag`: record -> play round trips (native, NDArray, ROS 2 incl. a 4K
Image), third-party readers (rosbags, mcap, mcap-ros2-support), the zero-copy record path, and
faults: a SIGKILLed recorder, a full disk, truncated / corrupt / foreign files, unknown schemas."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import baton
from baton import _baton
from baton.bag import (
    CorruptBagError,
    NotMcapError,
    Player,
    Reader,
    Recorder,
    UnknownSchemaError,
    Writer,
)

from conftest import ROOT, run_cli, wait_for

ROS_PREFIX = ROOT / ".venv-ros"
STRUCT_FACTS = "cpp;size=24;align=8"  # what a C++ BATON_MESSAGE struct's type carries


@pytest.fixture
def ament(monkeypatch):
    if not (ROS_PREFIX / "share" / "sensor_msgs" / "msg" / "Image.msg").is_file():
        pytest.fail(
            "no ROS 2 .msg files in .venv-ros: run scripts/install-ros-wheels.sh (make test does)"
        )
    monkeypatch.setenv("AMENT_PREFIX_PATH", str(ROS_PREFIX))


def typestore():
    from rosbags.typesys import Stores, get_typestore

    return get_typestore(Stores.ROS2_HUMBLE)


def ros2_messages(ts) -> dict[str, list]:
    """ROS 2 messages (rosbags objects), among them a 4K rgb8 Image, per topic."""
    Image = ts.types["sensor_msgs/msg/Image"]
    Header = ts.types["std_msgs/msg/Header"]
    Time = ts.types["builtin_interfaces/msg/Time"]
    String = ts.types["std_msgs/msg/String"]
    h, w = 2160, 3840
    images = []
    for i in range(2):
        pixels = np.full(h * w * 3, i + 1, np.uint8)
        pixels[:: 4096 + i] = 200 + i
        images.append(
            Image(Header(Time(i, 7), "camera"), h, w, "rgb8", 0, w * 3, pixels)
        )  # fmt: skip
    return {
        "/chatter": [String(f"hello {i}") for i in range(5)],
        "/image": images,
    }


def struct_publisher(node, topic: str):
    native = _baton.create_publisher(
        node._node, topic, "demo/msg/Pose", STRUCT_FACTS, "", baton.QoS(10), False, 0, 0, [], 0
    )
    return baton.Publisher(native, None, "demo/msg/Pose")


def record_in_process(ctx, path: Path, publish_all, expected: int, **writer_kw):
    """Records while `publish_all(step)` publishes; step() spins the recorder until the message
    just published is written (no sleeps, no losses)."""
    writer = Writer(path, **writer_kw)
    seen: list[tuple[str, int]] = []  # keep no view: a held view holds its sample (16 at most)
    rec = Recorder(
        writer, all_topics=True, context=ctx, on_write=lambda t, v: seen.append((t, v.nbytes))
    )

    def step() -> None:
        before = writer.message_count
        assert wait_for(lambda: (rec.spin_once(0.2), writer.message_count > before)[1], 10), (
            rec.stats(),
            before,
        )

    assert rec.discover()  # the publishers exist: subscribe before the first message
    publish_all(step)
    assert writer.message_count == expected
    return rec.close(), seen


def shm_ranges() -> list[tuple[int, int]]:
    out = []
    for line in Path("/proc/self/maps").read_text().splitlines():
        parts = line.split()
        if len(parts) >= 6 and parts[5].startswith("/dev/shm/baton."):
            lo, hi = (int(x, 16) for x in parts[0].split("-"))
            out.append((lo, hi))
    return out


# --- round trip ---------------------------------------------------------------------------------


def test_writer_rejects_an_unknown_compression(tmp_path):
    with pytest.raises(ValueError):
        Writer(tmp_path / "x.mcap", compression="gzip")


def test_record_then_play_gives_byte_equal_messages_in_order(ctx, ament, tmp_path):
    ts = typestore()
    ros = ros2_messages(ts)
    node = baton.Node(ctx, "talker")
    arr = node.publisher("/arr", np.float32, (3, 4)).qos(baton.QoS(10)).create()
    pose = struct_publisher(node, "/pose")
    chatter = node.raw_publisher("/chatter", "std_msgs/msg/String").create()
    image = node.raw_publisher("/image", "sensor_msgs/msg/Image").qos(baton.QoS(2)).create()
    sent: dict[str, list[bytes]] = {"/arr": [], "/pose": [], "/chatter": [], "/image": []}

    def publish_all(step) -> None:
        for i in range(5):
            with arr.loan() as a:
                a[:] = np.arange(12, dtype=np.float32).reshape(3, 4) * i
            step()
            pose.publish(bytes([i]) * 24)
            step()
            chatter.publish(ts.serialize_cdr(ros["/chatter"][i], "std_msgs/msg/String"))
            step()
        for img in ros["/image"]:
            image.publish(ts.serialize_cdr(img, "sensor_msgs/msg/Image"))
            step()

    stats, seen = record_in_process(ctx, tmp_path / "rt.mcap", publish_all, 17)
    assert all(s["lost"] == 0 for s in stats.values()), stats
    assert [t for t, _ in seen].count("/image") == 2
    r = Reader(tmp_path / "rt.mcap")
    recorded = {t: [m.data for m in r.messages([t])] for t in sent}
    assert [len(v) for v in recorded.values()] == [5, 5, 5, 2]
    assert recorded["/image"][1] == ts.serialize_cdr(ros["/image"][1], "sensor_msgs/msg/Image")
    assert recorded["/pose"][3] == bytes([3]) * 24
    kinds = {t: i.kind for t, i in r.topics.items()}
    assert kinds == {"/arr": "ndarray", "/pose": "native", "/chatter": "ros2", "/image": "ros2"}

    # play into fresh subscriptions (another namespace would do as well: new names here)
    listener = baton.Node(ctx, "listener")
    remap = {t: "/played" + t for t in sent}
    subs = {}
    for t, info in r.topics.items():
        subs[t] = _baton.create_subscription(
            listener._node, remap[t], info.type_name, "", info.type_hash,
            baton.QoS(100).reliable(), True, "blocking", None,
        )  # fmt: skip
    typed = listener.subscription("/played/arr", np.float32).qos(baton.QoS(100)).create()
    player = Player([tmp_path / "rt.mcap"], rate=50.0, remap=remap, context=ctx)
    t = threading.Thread(target=player.run)
    t.start()
    got = {k: [] for k in sent}
    for topic, sub in subs.items():
        while len(got[topic]) < len(recorded[topic]):
            s = sub.take(timeout=10.0)
            assert s is not None, f"nothing played on {topic}"
            got[topic].append(s.message_bytes())
            s.release()
    t.join()
    assert got == recorded
    a = typed.take(timeout=5.0)
    assert a is not None and a.array.shape == (3, 4) and a.array[2, 3] == 0.0


def test_recorder_hands_the_shared_memory_view_to_the_writer_once_per_message(ctx, tmp_path):
    node = baton.Node(ctx, "talker")
    pub = node.publisher("/frames", np.uint8, (64, 64)).create()

    def publish_all(step) -> None:
        for i in range(4):
            with pub.loan() as a:
                a[:] = i
            step()
            ranges = shm_ranges()
            _topic, readonly, addr = seen_now[-1]
            assert readonly and any(lo <= addr < hi for lo, hi in ranges)

    def on_write(topic: str, view: memoryview) -> None:
        seen_now.append((topic, view.readonly, np.asarray(view).__array_interface__["data"][0]))

    seen_now: list = []
    writer = Writer(tmp_path / "zc.mcap", compression="none")
    rec = Recorder(writer, topics=["/frames"], context=ctx, on_write=on_write)

    def step() -> None:
        n = writer.message_count
        assert wait_for(lambda: (rec.spin_once(0.2), writer.message_count > n)[1], 10)

    assert rec.discover() == ["/frames"]
    publish_all(step)
    rec.close()
    assert len(seen_now) == writer.message_count == 4  # one hand-over per message, no copy


def test_rosbags_reads_baton_mcap_and_every_ros2_message_is_equal(ctx, ament, tmp_path):
    from rosbags.highlevel import AnyReader

    ts = typestore()
    ros = ros2_messages(ts)
    node = baton.Node(ctx, "talker")
    pubs = {
        "/chatter": node.raw_publisher("/chatter", "std_msgs/msg/String").create(),
        "/image": node.raw_publisher("/image", "sensor_msgs/msg/Image").create(),
    }
    types = {"/chatter": "std_msgs/msg/String", "/image": "sensor_msgs/msg/Image"}

    def publish_all(step) -> None:
        for topic, msgs in ros.items():
            for m in msgs:
                pubs[topic].publish(ts.serialize_cdr(m, types[topic]))
                step()

    record_in_process(ctx, tmp_path / "ros.mcap", publish_all, 7, compression="lz4")
    got: dict[str, list] = {"/chatter": [], "/image": []}
    with AnyReader([tmp_path / "ros.mcap"]) as reader:
        for conn, _t, raw in reader.messages():
            got[conn.topic].append(reader.deserialize(raw, conn.msgtype))
    assert [m.data for m in got["/chatter"]] == [m.data for m in ros["/chatter"]]
    for a, b in zip(got["/image"], ros["/image"], strict=True):
        assert (a.height, a.width, a.encoding, a.step) == (b.height, b.width, b.encoding, b.step)
        assert a.header.frame_id == "camera" and a.header.stamp.sec == b.header.stamp.sec
        assert np.array_equal(a.data, b.data)


def test_mcap_reader_validates_crcs_summary_and_ros2_schemas(ctx, ament, tmp_path):
    from mcap.reader import make_reader
    from mcap_ros2.decoder import DecoderFactory

    node = baton.Node(ctx, "talker")
    pub = node.raw_publisher("/chatter", "std_msgs/msg/String").create()
    arr = node.publisher("/arr", np.int16, (8,)).create()
    ts = typestore()

    def publish_all(step) -> None:
        for i in range(30):
            pub.publish(
                ts.serialize_cdr(ts.types["std_msgs/msg/String"](f"m{i}"), "std_msgs/msg/String")
            )
            step()
            arr.publish(np.full(8, i, np.int16))
            step()

    record_in_process(ctx, tmp_path / "v.mcap", publish_all, 60, chunk_size=512)
    with open(tmp_path / "v.mcap", "rb") as f:
        reader = make_reader(f, validate_crcs=True, decoder_factories=[DecoderFactory()])
        summary = reader.get_summary()
        counts: dict[int, int] = {}
        times = []
        texts = []
        for _schema, channel, message, decoded in reader.iter_decoded_messages(topics=["/chatter"]):
            counts[channel.id] = counts.get(channel.id, 0) + 1
            texts.append(decoded.data)
            times.append(message.log_time)
        for _s, channel, message in reader.iter_messages(topics=["/arr"]):
            counts[channel.id] = counts.get(channel.id, 0) + 1
            times.append(message.log_time)
    st = summary.statistics
    assert texts == [f"m{i}" for i in range(30)]
    assert dict(st.channel_message_counts) == counts and st.message_count == 60
    assert (st.message_start_time, st.message_end_time) == (min(times), max(times))
    assert st.chunk_count == len(summary.chunk_indexes) > 2
    schema = next(s for s in summary.schemas.values() if s.name == "std_msgs/msg/String")
    assert schema.encoding == "ros2msg" and b"string data" in schema.data
    img = Writer(tmp_path / "img.mcap")
    img.add_topic("/img", "sensor_msgs/msg/Image", _baton.ros2_topic_hash("sensor_msgs/msg/Image"))
    img.close()
    data = Reader(tmp_path / "img.mcap").schemas[1].data.decode()
    assert "\nMSG: std_msgs/msg/Header\n" in data and "\nMSG: builtin_interfaces/msg/Time\n" in data
    assert data.count("=" * 80) == 2


def test_a_ros2_type_without_its_msg_file_is_recorded_as_bytes_with_a_warning(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("AMENT_PREFIX_PATH", str(tmp_path))
    w = Writer(tmp_path / "w.mcap")
    info = w.add_topic("/x", "nope_msgs/msg/Thing", _baton.ros2_topic_hash("nope_msgs/msg/Thing"))
    w.close()
    assert info.kind == "native" and "nope_msgs/msg/Thing" in w.warnings[0]


def test_split_by_size_writes_numbered_files_each_with_a_summary(tmp_path):
    w = Writer(tmp_path / "s.mcap", compression="none", chunk_size=1024, split_size=4096)
    w.add_topic("/b", "baton/msg/Bytes", "ab")
    for i in range(40):
        w.write("/b", bytes([i]) * 300, log_time=i)
    paths = w.close()
    assert len(paths) > 2 and paths[0].name == "s_0.mcap"
    readers = [Reader(p) for p in paths]
    assert all(r.complete for r in readers)
    assert [m.data[0] for r in readers for m in r.messages()] == list(range(40))


def test_split_by_duration(tmp_path):
    w = Writer(tmp_path / "d.mcap", split_duration=1.0)
    w.add_topic("/b", "baton/msg/Bytes", "ab")
    for i in range(10):
        w.write("/b", b"x", log_time=i * 300_000_000)
    assert len(w.close()) == 3  # [0, 0.9], [1.2, 2.1], [2.4, 2.7]


# --- faults -------------------------------------------------------------------------------------


class Talker:
    """Publishes 1 KiB messages (byte i % 256) on /t until stopped; counts them."""

    def __init__(self, ctx, size: int = 1024):
        node = baton.Node(ctx, "talker")
        self.pub = node.raw_publisher("/t", "baton/msg/Bytes").qos(baton.QoS(10)).create()
        self.size, self.count, self.errors = size, 0, []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.wait(0.001):
            try:
                self.pub.publish(bytes([self.count % 256]) * self.size)
                self.count += 1
            except baton.BatonError as e:
                self.errors.append(e)

    def close(self) -> None:
        self.stop.set()
        self.thread.join()


def start_recorder(path: Path, *extra: str, **kw) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "baton", "bag", "record", "/t", "-o", str(path), *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw,
    )  # fmt: skip


@pytest.mark.parametrize(
    "layout", [("--chunk-size", "4096", "--compression", "lz4"), ("--no-chunks",)]
)
def test_sigkilled_recorder_leaves_a_file_readable_to_its_last_chunk(ctx, tmp_path, layout):
    talker = Talker(ctx)
    path = tmp_path / "k.mcap"
    rec = start_recorder(path, *layout)
    try:
        assert wait_for(lambda: path.exists() and path.stat().st_size > 50_000, 30)
        rec.send_signal(signal.SIGKILL)
        rec.wait(timeout=10)
    finally:
        talker.close()
    r = Reader(path)
    assert not r.complete and "truncated" in r.ends
    msgs = list(r.messages())
    assert len(msgs) == r.message_count > 20
    assert all(m.data == bytes([m.data[0]]) * 1024 for m in msgs)
    out = run_cli("bag", "info", str(path), check=True).stdout
    assert "Ends:              truncated" in out and f"Messages:          {len(msgs)}" in out


def test_recorder_started_with_sigint_ignored_still_closes_its_bag_on_sigint(ctx, tmp_path):
    # `baton bag record ... &` in a script, or under nohup, inherits SIGINT ignored; `kill -INT`
    # must still close the bag as Ctrl-C does (before, the recorder ran on).
    talker = Talker(ctx)
    path = tmp_path / "i.mcap"
    ignoring = ["/bin/sh", "-c", 'trap "" INT; exec "$@"', "sh"]
    rec = subprocess.Popen(
        [*ignoring, sys.executable, "-m", "baton", "bag", "record", "/t", "-o", str(path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert wait_for(lambda: path.exists() and path.stat().st_size > 50_000, 30)
        rec.send_signal(signal.SIGINT)
        out, err = rec.communicate(timeout=30)
    finally:
        if rec.poll() is None:
            rec.kill()
        talker.close()
    assert rec.returncode == 0, err
    assert "files:" in out
    r = Reader(path)
    assert r.complete and r.message_count > 20


def _mount_small_tmpfs(where: Path) -> bool:
    where.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(where)],
                       capture_output=True)  # fmt: skip
    return r.returncode == 0


@pytest.mark.parametrize(
    "layout", [("--chunk-size", "16384", "--compression", "none"), ("--no-chunks",)]
)
def test_full_disk_gives_a_clear_error_and_a_closed_readable_file(ctx, tmp_path, layout):
    disk = tmp_path / "disk"
    mounted = _mount_small_tmpfs(disk)
    kw = {}
    if not mounted:  # not root: a file size limit stands in for the small tmpfs

        def limit() -> None:
            import resource

            resource.setrlimit(resource.RLIMIT_FSIZE, (256 * 1024, 256 * 1024))
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

        kw["preexec_fn"] = limit
    talker = Talker(ctx, size=8192)
    path = disk / "full.mcap"
    try:
        rec = start_recorder(path, *layout, **kw)
        out, err = rec.communicate(timeout=60)
        before = talker.count
        assert wait_for(lambda: talker.count > before + 10, 10)  # the publisher goes on
    finally:
        talker.close()
        if mounted:
            subprocess.run(["umount", "-l", str(disk)], check=False)
    assert rec.returncode == 10, (out, err)
    assert "error: writing" in err and ("disk is full" in err or "file size limit" in err), err
    assert "hint:" in err and "Traceback" not in err
    assert not talker.errors


def test_full_disk_file_is_readable_up_to_its_last_complete_chunk(tmp_path):
    disk = tmp_path / "disk"
    if not _mount_small_tmpfs(disk):
        pytest.fail(
            "cannot mount a tmpfs here: the full-disk test needs root (make test runs as root)"
        )
    try:
        w = Writer(disk / "f.mcap", compression="none", chunk_size=8192)
        w.add_topic("/b", "baton/msg/Bytes", "ab")
        from baton.bag import BagWriteError

        with pytest.raises(BagWriteError, match="disk is full"):
            for i in range(1000):
                w.write("/b", bytes([i % 256]) * 4000, log_time=i)
        w.close()  # already closed: no second error
        r = Reader(disk / "f.mcap")
        msgs = list(r.messages())
        assert not r.complete and len(msgs) > 10
        assert [m.data[0] for m in msgs] == [i % 256 for i in range(len(msgs))]
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


# --- bad input ----------------------------------------------------------------------------------


def small_bag(path: Path, compression: str = "zstd") -> bytes:
    w = Writer(path, compression=compression, chunk_size=256)
    w.add_topic("/b", "baton/msg/Bytes", "ab", {"depth": 5})
    for i in range(20):
        w.write("/b", bytes([i]) * 50, log_time=1000 + i)
    w.close()
    return path.read_bytes()


def test_foreign_file_is_refused_as_not_mcap(tmp_path):
    (tmp_path / "x.mcap").write_text("hello, not a bag\n")
    with pytest.raises(NotMcapError, match="not an MCAP file"):
        Reader(tmp_path / "x.mcap")
    r = run_cli("bag", "info", str(tmp_path / "x.mcap"))
    assert r.returncode == 10 and "error:" in r.stderr and "Traceback" not in r.stderr
    assert run_cli("bag", "info", str(tmp_path / "nope.mcap")).returncode == 3


def test_truncated_files_read_up_to_the_cut(tmp_path):
    data = small_bag(tmp_path / "a.mcap", "none")
    counts = []
    for cut in (len(data) - 10, len(data) // 2, 40, 8):
        (tmp_path / "t.mcap").write_bytes(data[:cut])
        r = Reader(tmp_path / "t.mcap")
        assert not r.complete and "truncated" in r.ends
        counts.append(len(list(r.messages())))
    assert counts[0] == 20 and 0 < counts[1] < 20 and counts[2] == counts[3] == 0


def test_corrupt_chunk_is_a_clear_error(tmp_path):
    data = bytearray(small_bag(tmp_path / "a.mcap", "none"))
    i = data.index(bytes([7]) * 50)  # a message's bytes inside a chunk
    data[i + 3] ^= 0xFF
    (tmp_path / "c.mcap").write_bytes(bytes(data))
    with pytest.raises(CorruptBagError, match="CRC|crc"):
        list(Reader(tmp_path / "c.mcap").messages())


def test_unknown_schema_cannot_be_played(ctx, tmp_path):
    from mcap.writer import Writer as McapWriter

    with open(tmp_path / "pb.mcap", "wb") as f:
        w = McapWriter(f)
        w.start()
        sid = w.register_schema("foo.Bar", "protobuf", b"\x00")
        cid = w.register_channel("/pb", "protobuf", sid)
        w.add_message(cid, 1, b"\x08\x01", 1)
        w.finish()
    assert Reader(tmp_path / "pb.mcap").topics["/pb"].kind == "foreign"
    with pytest.raises(UnknownSchemaError, match="protobuf"):
        Player([tmp_path / "pb.mcap"], context=ctx)
    r = run_cli("bag", "play", str(tmp_path / "pb.mcap"))
    assert r.returncode == 4 and "protobuf" in r.stderr and "hint:" in r.stderr


# --- CLI ----------------------------------------------------------------------------------------


def test_cli_record_info_play(ctx, tmp_path):
    talker = Talker(ctx, size=64)
    path = tmp_path / "cli.mcap"
    try:
        r = run_cli("bag", "record", "-e", "/t.*", "-o", str(path), "--max-messages", "50",
                    "--format", "json", check=True)  # fmt: skip
    finally:
        talker.close()
    rec = json.loads(r.stdout)
    assert rec["files"] == [str(path)] and rec["topics"]["/t"]["recorded"] == 50
    info = json.loads(run_cli("bag", "info", str(path), "--format", "json", check=True).stdout)
    assert info["messages"] == 50 and info["complete"] and info["compression"] == {"zstd": 1}
    assert info["topics"][0]["qos"] == {
        "depth": 10,
        "reliability": "reliable",
        "durability": "volatile",
    }
    text = run_cli("bag", "info", str(path), check=True).stdout
    assert "Topic: /t | Type: baton/msg/Bytes | Count: 50" in text
    node = baton.Node(ctx, "listener")
    sub = node.raw_subscription("/replay", "baton/msg/Bytes").qos(baton.QoS(100)).create()
    play = subprocess.Popen(
        [sys.executable, "-m", "baton", "bag", "play", str(path), "--remap", "/t:=/replay",
         "-r", "100", "--format", "json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    got = []
    while len(got) < 50 and (s := sub.take(timeout=10.0)) is not None:
        got.append(s.tobytes())
        s.release()
    out, err = play.communicate(timeout=30)
    assert play.returncode == 0, err
    assert json.loads(out) == {"published": {"/t": 50}}
    assert got == [m.data for m in Reader(path).messages()]


def test_cli_record_without_topics_is_a_usage_error(ns):
    r = run_cli("bag", "record")
    assert r.returncode == 1 and "nothing to record" in r.stderr
