"""`baton bag play --wire` (Player(wire=True)): a recorded ROS 2 topic played to an rclpy
subscriber on rmw_fastrtps_cpp over the DDS wire (not shared memory): every message exactly once,
in order, its CDR bytes equal to the recorded ones; a baton subscriber still gets the same
messages from shared memory; clear errors for a type without its .msg."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from test_bag import record_in_process, typestore

import baton
from baton import _baton
from baton.bag import Player, Reader, Writer
from baton.errors import TypeMismatchError

from conftest import HELPERS, ROOT, Peer, run_cli

ROS_PREFIX = ROOT / ".venv-ros"
DOMAIN_ID = 104 + int(os.environ.get("BATON_TEST_DOMAIN_SHIFT", "0"))  # this file's own


@pytest.fixture
def ros2_wire(monkeypatch):
    """AMENT_PREFIX_PATH for the types, this file's ROS_DOMAIN_ID, discovery on loopback only."""
    if not (ROS_PREFIX / "share" / "rmw_dds_common" / "msg").is_dir():
        pytest.fail("no .venv-ros with ROS 2 wheels: run scripts/install-ros-wheels.sh")
    if not baton._baton.HAVE_ROS2_WIRE:
        pytest.fail("baton was built without CycloneDDS (cyclonedds-dev): no DDS wire")
    monkeypatch.setenv("AMENT_PREFIX_PATH", str(ROS_PREFIX))
    monkeypatch.setenv("ROS_DOMAIN_ID", str(DOMAIN_ID))
    monkeypatch.setenv("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    monkeypatch.delenv("ROS_LOCALHOST_ONLY", raising=False)


class RclpyListener(Peer):
    """tests/helpers/rclpy_bag_listener.py in .venv-ros's python (rclpy on Fast DDS, unless
    `rmw_env` gives another RMW's environment)."""

    def __init__(self, *specs: str, rmw_env: dict | None = None):
        env = dict(os.environ, **(rmw_env or {"RMW_IMPLEMENTATION": "rmw_fastrtps_cpp"}))
        env.pop("PYTHONPATH", None)  # baton's build is not for this interpreter
        self.proc = subprocess.Popen(
            [str(ROS_PREFIX / "bin" / "python"), str(HELPERS / "rclpy_bag_listener.py"), *specs],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
        )  # fmt: skip
        self._pending = b""
        self.lines: list[str] = []
        self.expect("ready")

    def line(self) -> str:
        self.lines.append(self.readline(timeout=60.0))
        return self.lines[-1]

    def expect(self, word: str) -> str:
        line = self.line()
        assert line.startswith(word), (line, self.lines)
        return line

    def until(self, done) -> None:
        while not done():
            self.line()

    def finish(self) -> list[str]:
        """Ends the listener; the lines it printed after those already read."""
        self.proc.stdin.write(b"stop\n")
        self.proc.stdin.flush()
        rest: list[str] = []
        while (line := self.line()) != "end":
            rest.append(line)
        assert self.proc.wait(timeout=30) == 0, self.stderr()
        return rest

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def image(ts, i: int, h: int = 480, w: int = 640):
    Image, Header, Time = (
        ts.types[t]
        for t in ("sensor_msgs/msg/Image", "std_msgs/msg/Header", "builtin_interfaces/msg/Time")
    )
    pixels = (np.arange(h * w * 3, dtype=np.uint32) * 7 + 13 * i).astype(np.uint8)
    return Image(Header(Time(i, 0), "camera"), h, w, "rgb8", 0, w * 3, pixels)


def record_bag(ctx, path: Path, prefix: str, qos=None) -> dict[str, list[bytes]]:
    """A bag of 5 std_msgs/String and 3 640x480 rgb8 Images published on baton shared memory as
    CDR; returns the recorded bytes per topic."""
    ts = typestore()
    node = baton.Node(ctx, "talker")
    qos = qos or baton.QoS(10)
    chatter = node.raw_publisher(prefix + "chatter", "std_msgs/msg/String").qos(qos).create()
    images = node.raw_publisher(prefix + "image", "sensor_msgs/msg/Image").qos(qos).create()
    String = ts.types["std_msgs/msg/String"]

    def publish_all(step) -> None:
        for i in range(5):
            chatter.publish(ts.serialize_cdr(String(f"hello {i}"), "std_msgs/msg/String"))
            step()
        for i in range(3):
            images.publish(ts.serialize_cdr(image(ts, i), "sensor_msgs/msg/Image"))
            step()

    stats, _ = record_in_process(ctx, path, publish_all, 8)
    assert all(s["lost"] == 0 for s in stats.values()), stats
    r = Reader(path)
    assert {i.kind for i in r.topics.values()} == {"ros2"}
    return {t: [m.data for m in r.messages([t])] for t in r.topics}


def received(lines: list[str], topic: str) -> list[tuple[str, int]]:
    return [(w[2], int(w[3])) for w in map(str.split, lines) if w[:2] == ["msg", topic]]


def strings(lines: list[str], topic: str) -> list[str]:
    """The std_msgs/String values received on `topic` (each printed after its "msg" line)."""
    return [ln.split(" ", 2)[2] for ln in lines if ln.startswith(f"data {topic} ")]


def digests(messages: list[bytes]) -> list[tuple[str, int]]:
    return [(hashlib.sha256(m).hexdigest(), len(m)) for m in messages]


def test_play_over_the_wire_reaches_rclpy_on_fast_dds_once_in_order(ctx, ros2_wire, tmp_path):
    prefix = f"/bagwire_{os.getpid()}/"
    recorded = record_bag(ctx, tmp_path / "wire.mcap", prefix)
    assert [len(recorded[prefix + "chatter"]), len(recorded[prefix + "image"])] == [5, 3]
    assert len(recorded[prefix + "image"][0]) > 640 * 480 * 3
    # Played on new names: the talker's topics (typed by name only) stay open in this process,
    # and a wire publisher's topic carries the ROS 2 type hash, as rmw_baton_cpp's do.
    remap = {prefix + t: prefix + "played/" + t for t in ("chatter", "image")}
    chatter, img = remap[prefix + "chatter"], remap[prefix + "image"]
    rclpy = RclpyListener(f"{chatter}:std_msgs/msg/String", f"{img}:sensor_msgs/msg/Image")
    try:
        player = Player(tmp_path / "wire.mcap", rate=20.0, context=ctx, wire=True, remap=remap,
                        wait_for_subscribers=True)  # fmt: skip
        # DDS matches each side on its own: rclpy's readers have matched the player's writers
        # (their matched events); run() waits for the writers' side. Then nothing is missed.
        rclpy.until(lambda: {chatter, img} <= {ln.split()[1] for ln in rclpy.lines[1:]})
        published = player.run()
        assert published == {prefix + "chatter": 5, prefix + "image": 3}  # by recorded name
        assert player.publishers[prefix + "chatter"].wire_samples == 5
        assert player.publishers[prefix + "image"].wire_samples == 3
        rclpy.until(lambda: len(strings(rclpy.lines, chatter)) >= 5
                    and len(received(rclpy.lines, img)) >= 3)  # fmt: skip
        rest = rclpy.finish()
        player.close()
    finally:
        rclpy.close()
    assert not [ln for ln in rest if ln.startswith(("msg", "data"))], rest  # nothing twice
    assert received(rclpy.lines, chatter) == digests(recorded[prefix + "chatter"])
    assert received(rclpy.lines, img) == digests(recorded[prefix + "image"])
    assert strings(rclpy.lines, chatter) == [f"hello {i}" for i in range(5)]


def test_cli_play_wire_transient_local_reaches_a_late_matching_rclpy_reader(
    ctx, ros2_wire, tmp_path
):
    """`baton bag play --wire --wait-for-subscribers` as a user runs it: a transient-local
    recording keeps its history on the DDS writer, so rclpy gets all of it whichever side of the
    DDS match comes first."""
    prefix = f"/bagwire_cli_{os.getpid()}/"
    path = tmp_path / "tl.mcap"
    recorded = record_bag(ctx, path, prefix, baton.QoS(10).transient_local())
    chatter = prefix + "played/chatter"
    rclpy = RclpyListener(f"{chatter}:std_msgs/msg/String:transient-local")
    try:
        play = subprocess.Popen(
            [sys.executable, "-m", "baton", "bag", "play", str(path),
             "--topics", prefix + "chatter", "--remap", f"{prefix}chatter:={chatter}",
             "--wire", "--wait-for-subscribers", "-r", "50", "--format", "json"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        rclpy.until(lambda: len(strings(rclpy.lines, chatter)) >= 5)
        out, err = play.communicate(timeout=60)
        assert play.returncode == 0, err
        assert json.loads(out) == {"published": {prefix + "chatter": 5}}
        rest = rclpy.finish()
    finally:
        rclpy.close()
    assert not [ln for ln in rest if ln.startswith(("msg", "data"))], rest
    assert received(rclpy.lines, chatter) == digests(recorded[prefix + "chatter"])


def test_wire_play_of_a_type_without_its_msg_is_a_clear_error(ctx, ros2_wire, tmp_path):
    prefix = f"/bagwire_err_{os.getpid()}/"
    path = tmp_path / "e.mcap"
    record_bag(ctx, path, prefix)
    # A prefix with the wire's own types (rmw_dds_common) but not std_msgs.
    share = tmp_path / "prefix" / "share"
    share.mkdir(parents=True)
    for pkg in ("rmw_dds_common", "builtin_interfaces"):
        (share / pkg).symlink_to(ROS_PREFIX / "share" / pkg)
    env = dict(os.environ, AMENT_PREFIX_PATH=str(share.parent))
    r = run_cli("bag", "play", str(path), "--wire", "--topics", prefix + "chatter", env=env)
    assert r.returncode == 3, r.stderr
    assert "std_msgs/msg/String" in r.stderr and "hint:" in r.stderr
    assert "Traceback" not in r.stderr


def image_bag(path: Path, topic: str, count: int, depth: int) -> list[bytes]:
    """A bag (written directly: no live publisher of the type in this namespace) of `count`
    640x480 Images on `topic`, recorded with keep-last `depth`; returns their CDR bytes."""
    ts = typestore()
    frames = [ts.serialize_cdr(image(ts, i), "sensor_msgs/msg/Image") for i in range(count)]
    w = Writer(path)
    qos = {"depth": depth, "reliability": "reliable", "durability": "volatile"}
    w.add_topic(
        topic, "sensor_msgs/msg/Image", _baton.ros2_topic_hash("sensor_msgs/msg/Image"), qos
    )
    for i, f in enumerate(frames):
        w.write(topic, f, 1_000_000_000 + i * 1_000_000)
    w.close()
    return frames


def data_pools() -> dict[str, dict]:
    """This namespace's data segments (chunk pools), inspected."""
    return {
        s["name"]: _baton.inspect_segment(s["name"])["body"]
        for s in _baton.list_segments(False)
        if s["kind"] == "data"
    }


def subscription_hashes(ctx, topic: str) -> list[str]:
    endpoints = baton.graph_snapshot(ctx)["endpoints"]
    return [e["type_hash"] for e in endpoints if e["name"] == topic and e["kind"] == "subscription"]


def test_wire_play_reserves_its_pools_and_a_raw_subscription_by_name_takes_the_topic(
    ctx, ros2_wire, tmp_path
):
    """Before playing, a --wire topic's pool holds depth + 2 chunks of its first message's size
    (the first frames are not late for the pool's growth). A baton raw subscription typed by the
    ROS 2 name alone takes the topic's RIHS01 hash (rather than being refused) and gets every
    message from shared memory, byte-equal, in order."""
    topic = f"/bagwire_raw_{os.getpid()}/image"
    frames = image_bag(tmp_path / "raw.mcap", topic, 3, depth=4)
    before = set(data_pools())
    player = Player(tmp_path / "raw.mcap", context=ctx, wire=True, rate=20.0,
                    wait_for_subscribers=True)  # fmt: skip
    pools = [p for name, p in data_pools().items() if name not in before]
    big = [p for p in pools if p["chunk_capacity"] >= len(frames[0])]
    assert len(big) == 1 and big[0]["chunks"] >= 4 + 2 and big[0]["chunks_in_use"] == 0, pools
    got: list[bytes] = []
    node = baton.Node(ctx, "raw_listener")
    sub = node.raw_subscription(topic, "sensor_msgs/msg/Image").qos(baton.QoS(10)).create()
    assert subscription_hashes(ctx, topic) == [
        _baton.ros2_rihs01_topic_hash("sensor_msgs/msg/Image")
    ]
    assert player.run() == {topic: 3}
    while len(got) < 3:
        sample = sub.take(timeout=10.0)
        assert sample is not None, got
        got.append(bytes(sample.array))
        sample.release()
    player.close()
    assert digests(got) == digests(frames)


def test_raw_subscription_on_a_ros2_hash_it_cannot_verify_is_a_clear_error(
    ctx, ros2_wire, tmp_path, monkeypatch
):
    topic = f"/bagwire_rawerr_{os.getpid()}/image"
    image_bag(tmp_path / "e.mcap", topic, 1, depth=2)
    player = Player(tmp_path / "e.mcap", context=ctx, wire=True)
    monkeypatch.setenv("AMENT_PREFIX_PATH", str(tmp_path / "no_types"))
    node = baton.Node(ctx, "raw_listener")
    with pytest.raises(TypeMismatchError) as e:
        node.raw_subscription(topic, "sensor_msgs/msg/Image").create()
    assert "not on AMENT_PREFIX_PATH" in e.value.detail and topic in e.value.detail
    assert "RIHS01" in e.value.hint and f"node.subscription('{topic}')" in e.value.hint
    # The way the hint gives: no type name, the topic's own type and hash.
    node.subscription(topic).create()
    assert subscription_hashes(ctx, topic) != [_baton.ros2_topic_hash("sensor_msgs/msg/Image")]
    player.close()
