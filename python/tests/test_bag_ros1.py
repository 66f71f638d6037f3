"""ROS 1 topics in bags (issue 21): `baton bag record --ros1` of stock rospy talkers into MCAP
(encoding `ros1`, schema `ros1msg` with genmsg's full definition, md5sum in the channel
metadata, as MCAP's ROS 1 profile has it), read back with the `mcap` reader (CRCs checked) and
decoded by `rosbags` from the file's own schemas, shown by `bag info`, and played back by
`bag play` to rospy listeners, each message exactly once and in order."""

# ruff: noqa: F811 (tests take the imported roscore fixture as an argument)

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import numpy as np
from mcap.reader import make_reader
from ros1_env import SYSTEM_PYTHON, roscore  # noqa: F401 (the fixture)
from rosbags.typesys import Stores, get_types_from_msg, get_typestore

from baton import ros1
from baton.bag import Reader

from conftest import run_cli

W, H = 3840, 2160
WAIT = 60.0
N = 300


def _genpy(type_name: str) -> tuple[str, str]:
    """(md5sum, full definition) as Debian's genpy generated them."""
    pkg, name = type_name.split("/")
    code = (
        f"from {pkg}.msg import {name} as T; import json; "
        "print(json.dumps([T._md5sum, T._full_text]))"
    )
    out = subprocess.run([SYSTEM_PYTHON, "-c", code], capture_output=True, text=True, check=True)
    return tuple(json.loads(out.stdout))


def test_record_ros1_topics_read_them_back_and_play_them_to_rospy(roscore, tmp_path: Path):
    frame = np.random.default_rng(5).integers(0, 256, W * H * 3, dtype=np.uint8).tobytes()
    frame_file = tmp_path / "frame.bin"
    frame_file.write_bytes(frame)
    talker = roscore.rospy("string-talker", "/rec_chatter", str(N))
    camera = roscore.rospy("image-talker", "/rec_image", str(frame_file))
    talker.expect("ready", WAIT)
    camera.expect("ready", WAIT)

    # record: both talkers publish once the recorder has subscribed, then exit
    bag = tmp_path / "ros1.mcap"
    r = run_cli(
        "bag", "record", "--ros1", "/rec_chatter", "rec_image", "--max-messages", str(N + 2),
        "-o", str(bag), "--format", "json", timeout=3 * WAIT,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    stats = json.loads(r.stdout)
    assert stats["topics"]["/rec_chatter"]["recorded"] == N + 1
    assert stats["topics"]["/rec_image"]["recorded"] == 1
    assert stats["lost"] == 0
    talker.expect("published", WAIT)
    camera.expect("published", WAIT)

    # the mcap reader: CRCs, encodings, schemas and md5sums as MCAP's ROS 1 profile has them;
    # rosbags decodes every message from the file's own schema text
    store = get_typestore(Stores.EMPTY)
    strings, images = [], []
    with open(bag, "rb") as f:
        reader = make_reader(f, validate_crcs=True)
        assert reader.get_header().profile == "ros1"
        summary = reader.get_summary()
        assert sum(summary.statistics.channel_message_counts.values()) == N + 2
        for schema in summary.schemas.values():
            md5, full_text = _genpy(schema.name)
            assert schema.encoding == "ros1msg"
            assert schema.data.decode() == full_text
            store.register(get_types_from_msg(full_text, schema.name.replace("/", "/msg/")))
        for channel in summary.channels.values():
            assert channel.message_encoding == "ros1"
            md5, _ = _genpy(summary.schemas[channel.schema_id].name)
            assert channel.metadata["md5sum"] == md5
        for schema, channel, message in reader.iter_messages(log_time_order=False):
            decoded = store.deserialize_ros1(message.data, schema.name.replace("/", "/msg/"))
            ours = ros1.deserialize(schema.name, message.data)
            if channel.topic == "/rec_chatter":
                assert decoded.data == ours.data
                strings.append(decoded.data)
            else:
                assert bytes(decoded.data) == ours.data
                images.append((decoded, hashlib.sha256(decoded.data).hexdigest()))
    assert strings == [f"msg {i}" for i in range(N)] + ["end"]
    assert len(images) == 1
    img, digest = images[0]
    assert digest == hashlib.sha256(frame).hexdigest()
    assert (img.width, img.height, img.encoding, img.header.frame_id) == (W, H, "rgb8", "camera")

    # bag info
    info = Reader(bag).info()
    by_topic = {t["topic"]: t for t in info["topics"]}
    assert by_topic["/rec_chatter"]["kind"] == "ros1" and by_topic["/rec_chatter"]["count"] == N + 1
    assert by_topic["/rec_image"]["type"] == "sensor_msgs/Image"
    r = run_cli("bag", "info", str(bag), check=True)
    assert (
        f"Topic: /rec_chatter | Type: std_msgs/String | Count: {N + 1} | "
        "Serialization Format: ros1" in r.stdout
    )

    # play: to stock rospy listeners, each message once, in order, bytes equal
    listener = roscore.rospy("string-listener", "/rec_chatter")
    got_image = tmp_path / "played.bin"
    viewer = roscore.rospy("image-listener", "/rec_image", str(got_image))
    listener.expect("ready", WAIT)
    viewer.expect("ready", WAIT)
    r = run_cli("bag", "play", str(bag), "--wait-for-subscribers", "--format", "json",
                timeout=3 * WAIT)  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["published"] == {"/rec_chatter": N + 1, "/rec_image": 1}
    lines = []
    while not lines or lines[-1] != "got end":
        lines.append(listener.expect("got ", WAIT))
    assert lines == [f"got msg {i}" for i in range(N)] + ["got end"]
    assert viewer.expect("image ", WAIT).startswith(f"image {W}x{H} rgb8 step {W * 3}")
    assert hashlib.sha256(got_image.read_bytes()).hexdigest() == hashlib.sha256(frame).hexdigest()


def test_a_foreign_ros1_mcap_reads_as_ros1_topics(tmp_path: Path):
    """A bag written by another tool under MCAP's ROS 1 profile (no baton.* metadata): its
    channels are ROS 1 topics with the md5sum and latching of their metadata, playable."""
    from mcap.writer import Writer as McapWriter

    from baton.bag.reader import check_playable

    t = ros1.message_type("std_msgs/String")
    path = tmp_path / "foreign.mcap"
    with open(path, "wb") as f:
        w = McapWriter(f)
        w.start("ros1", "another-recorder")
        sid = w.register_schema("std_msgs/String", "ros1msg", t["definition"].encode())
        meta = {"md5sum": t["md5sum"], "latching": "1", "callerid": "/talker"}
        cid = w.register_channel("/latched", "ros1", sid, meta)
        w.add_message(cid, 1, ros1.serialize("std_msgs/String", {"data": "hi"}), 1)
        w.finish()
    r = Reader(path)
    info = r.topics["/latched"]
    assert (info.kind, info.type_name, info.type_hash) == ("ros1", "std_msgs/String", t["md5sum"])
    assert info.qos == {"durability": "transient_local"}
    check_playable(info, r.channel_of("/latched"))  # does not raise
    [m] = list(r.messages())
    assert ros1.deserialize("std_msgs/String", m.data).data == "hi"


def test_recording_ros1_topics_without_a_master_is_a_clear_error(ns, tmp_path, monkeypatch):
    monkeypatch.delenv("ROS_MASTER_URI", raising=False)
    bag = tmp_path / "none.mcap"
    r = run_cli("bag", "record", "--ros1", "/chatter", "-o", str(bag))
    assert r.returncode == 11, r.stderr
    assert "ROS_MASTER_URI is not set" in r.stderr and "hint: set ROS_MASTER_URI" in r.stderr
    assert Reader(bag).info()["complete"]  # the file it had opened is closed, with a summary
