"""Topics of ROS 2 publishers that carry the RIHS01 type hash (rclpy on rmw_baton_cpp, a native
ros2::Publisher) are recorded as ROS 2 topics: CDR under a `ros2msg` schema with the full
definition, which rosbags reads back to the values published, and which play (shared memory)
gives back to an rclpy subscriber on rmw_baton_cpp."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from test_bag import typestore
from test_bag_wire import RclpyListener, strings

import baton
from baton import _baton
from baton.bag import Player, Reader, Recorder, Writer, schemas

from conftest import HELPERS, ROOT, Peer, wait_for

ROS_PREFIX = ROOT / ".venv-ros"
RMW_LIBRARY = ROOT / "build" / "src" / "ros2" / "rmw" / "librmw_baton_cpp.so"
DOMAIN_ID = 107 + int(os.environ.get("BATON_TEST_DOMAIN_SHIFT", "0"))  # this file's own
STRING = "std_msgs/msg/String"


@pytest.fixture
def ros2_domain(ns, monkeypatch) -> str:
    """AMENT_PREFIX_PATH, this file's ROS_DOMAIN_ID (loopback discovery), and this process in the
    baton namespace rmw_baton_cpp gives that domain ("<BATON_NAMESPACE>-d<id>"); returns the
    BATON_NAMESPACE to give rclpy."""
    if not (ROS_PREFIX / "share" / "std_msgs" / "msg" / "String.msg").is_file():
        pytest.fail("no .venv-ros with ROS 2 wheels: run scripts/install-ros-wheels.sh")
    monkeypatch.setenv("AMENT_PREFIX_PATH", str(ROS_PREFIX))
    monkeypatch.setenv("ROS_DOMAIN_ID", str(DOMAIN_ID))
    monkeypatch.setenv("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    monkeypatch.delenv("ROS_LOCALHOST_ONLY", raising=False)
    monkeypatch.setenv("BATON_NAMESPACE", f"{ns}-d{DOMAIN_ID}")  # the ns fixture cleans it up
    return ns


def rmw_baton_env(base_namespace: str) -> dict:
    """What runs rclpy on rmw_baton_cpp in this test's baton namespace."""
    if not RMW_LIBRARY.is_file():
        pytest.fail(f"{RMW_LIBRARY} was not built (configure with .venv-ros present)")
    return {
        "BATON_NAMESPACE": base_namespace,
        "LD_PRELOAD": str(RMW_LIBRARY),
        "RMW_IMPLEMENTATION": "rmw_baton_cpp",
    }


class RclpyTalker(Peer):
    """tests/helpers/rclpy_bag_talker.py (or `script`) in .venv-ros's python, on
    rmw_baton_cpp."""

    def __init__(
        self, base_namespace: str, topic: str, count: int, script: str = "rclpy_bag_talker.py"
    ):
        env = dict(os.environ, **rmw_baton_env(base_namespace))
        env.pop("PYTHONPATH", None)  # baton's build is not for this interpreter
        self.proc = subprocess.Popen(
            [str(ROS_PREFIX / "bin" / "python"), str(HELPERS / script), topic, str(count)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
        )  # fmt: skip
        self._pending = b""
        self.expect("ready", timeout=60)

    def send(self, line: str) -> None:
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()


def record(ctx, path, topic: str, count: int, publish) -> dict:
    """Subscribes a Recorder to `topic` (its publisher exists) with a queue as deep as the
    stream, runs `publish()` (a burst), records until `count` messages are written; returns the
    final stats."""
    writer = Writer(path)
    rec = Recorder(writer, topics=[topic], context=ctx, queue_depth=max(count, 100))
    assert rec.discover() == [topic]
    publish()
    assert wait_for(lambda: (rec.spin_once(0.2), writer.message_count >= count)[1], 30), rec.stats()
    return rec.close()


def assert_ros2_strings(path, topic: str, texts: list[str]) -> None:
    """The bag holds `topic` as a ROS 2 topic with the RIHS01 hash, and rosbags reads `texts`."""
    from rosbags.highlevel import AnyReader

    bag = Reader(path)
    info = bag.topics[topic]
    assert info.kind == "ros2"
    assert info.type_hash == _baton.ros2_rihs01_topic_hash(STRING)
    assert info.type_hash != _baton.ros2_topic_hash(STRING)  # not a name-only topic
    channel = bag.channel_of(topic)
    assert channel.message_encoding == "cdr"
    schema = bag.schemas[channel.schema_id]
    assert (schema.encoding, schema.data.decode()) == ("ros2msg", schemas.ros2_definition(STRING))
    with AnyReader([path]) as reader:
        got = [reader.deserialize(raw, c.msgtype).data for c, _t, raw in reader.messages()]
    assert got == texts


def test_rclpy_on_rmw_baton_topic_is_recorded_as_ros2(ctx, ros2_domain, tmp_path):
    topic = f"/bag_rihs_{os.getpid()}/chatter"
    talker = RclpyTalker(ros2_domain, topic, 5)
    try:
        eps = [e for e in baton.graph_snapshot(ctx)["endpoints"] if e["name"] == topic]
        assert [e["type_hash"] for e in eps] == [_baton.ros2_rihs01_topic_hash(STRING)]
        stats = record(ctx, tmp_path / "rclpy.mcap", topic, 5, lambda: talker.send("go"))
        talker.expect("published 5")
    finally:
        talker.stop()
    assert stats[topic] == {"recorded": 5, "lost": 0, "copied": 0}
    assert_ros2_strings(tmp_path / "rclpy.mcap", topic, [f"hello {i}" for i in range(5)])

    # Played back (shared memory, no --wire) under the recorded RIHS01 hash: an rclpy
    # subscription on rmw_baton_cpp takes the topic and gets every message, in order.
    played = topic + "_played"
    listener = RclpyListener(f"{played}:{STRING}", rmw_env=rmw_baton_env(ros2_domain))
    try:
        player = Player(tmp_path / "rclpy.mcap", context=ctx, rate=50.0, remap={topic: played})
        assert player.run() == {topic: 5}
        listener.until(lambda: len(strings(listener.lines, played)) >= 5)
        rest = listener.finish()
    finally:
        listener.close()
    assert not [ln for ln in rest if ln.startswith(("msg", "data"))], rest  # nothing twice
    assert strings(listener.lines, played) == [f"hello {i}" for i in range(5)]


def test_a_stamped_fast_stream_is_logged_at_its_publish_stamps(ctx, ros2_domain, tmp_path):
    """rmw_baton_cpp's publishers stamp each message (the source timestamp, system clock): the
    recorder, which takes a fast stream in batches, logs each message at its stamp (log and
    publish time), not at when the batch was taken."""
    topic = f"/bag_stamps_{os.getpid()}/chatter"
    count = 300
    talker = RclpyTalker(ros2_domain, topic, count, "rclpy_stamped_talker.py")
    try:
        stats = record(ctx, tmp_path / "stamped.mcap", topic, count, lambda: talker.send("go"))
        stamps = json.loads(talker.expect("stamps", timeout=30).split(" ", 1)[1])
    finally:
        talker.stop()
    assert (stats[topic]["recorded"], stats[topic]["lost"]) == (count, 0)
    ts = typestore()
    got = [
        (ts.deserialize_cdr(m.data, STRING).data, m.log_time, m.publish_time)
        for m in Reader(tmp_path / "stamped.mcap").messages()
    ]
    texts = [f"m {i}" for i in range(count)]
    assert [t for t, _l, _p in got] == texts  # in log-time order: the order published
    assert [lt for _t, lt, _p in got] == [stamps[t] for t in texts]
    assert [pt for _t, _l, pt in got] == [stamps[t] for t in texts]
    log_times = [lt for _t, lt, _p in got]
    assert all(a < b for a, b in zip(log_times, log_times[1:]))


def test_native_ros2_publisher_topic_is_recorded_as_ros2(ctx, ros2_domain, tmp_path):
    if not _baton.HAVE_ROS2_WIRE:
        pytest.fail("baton was built without CycloneDDS (cyclonedds-dev): no ros2::Publisher")
    ts = typestore()
    topic = f"/bag_rihs_native_{os.getpid()}/chatter"
    node = _baton.Ros2WireNode(ctx, "bag_rihs_talker")
    pub = node.publisher(topic, STRING, baton.QoS(10))
    texts = [f"native {i}" for i in range(3)]

    def publish() -> None:
        for text in texts:
            cdr = ts.serialize_cdr(ts.types[STRING](text), STRING)
            loan = pub.loan(len(cdr))
            loan.array[:] = memoryview(cdr)
            pub.publish(loan)

    record(ctx, tmp_path / "native.mcap", topic, 3, publish)
    assert_ros2_strings(tmp_path / "native.mcap", topic, texts)


def test_rihs01_topic_without_its_msg_files_is_native(ctx, ros2_domain, tmp_path, monkeypatch):
    """The RIHS01 hash is computed from the .msg files: without them the topic's bytes are still
    recorded, as `baton.raw`."""
    talker_hash = _baton.ros2_rihs01_topic_hash(STRING)
    monkeypatch.setenv("AMENT_PREFIX_PATH", str(tmp_path / "empty"))
    assert _baton.ros2_rihs01_topic_hash(STRING) is None
    assert schemas.kind_of(STRING, talker_hash) == "native"
    monkeypatch.setenv("AMENT_PREFIX_PATH", str(ROS_PREFIX))
    assert schemas.kind_of(STRING, talker_hash) == "ros2"
