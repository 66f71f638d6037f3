"""baton.ros1 against a real roscore and stock rospy nodes (tests/ros1/rospy_peer.py): messages
both ways exactly once and in order, a 4K Image with equal bytes, baton <-> baton over BATONSHM
read in place, names and remapping, and the errors a user meets (no master, unknown type, md5sum
mismatch)."""

# ruff: noqa: F811 (tests take the imported roscore fixture as an argument)

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from ros1_env import free_port, roscore  # noqa: F401 (the fixture)

import baton
from baton import ros1

from conftest import run_cli

W, H = 3840, 2160
WAIT = 60.0  # the longest any event may take on a loaded machine before the test fails


def _image_bytes(seed: int) -> bytes:
    return np.random.default_rng(seed).integers(0, 256, W * H * 3, dtype=np.uint8).tobytes()


class Collector:
    """A callback that keeps what it gets and fires `done` on the message `last`."""

    def __init__(self, last: str = "end", key=lambda m: m.data):
        self.items: list = []
        self.done = threading.Event()
        self.last, self.key = last, key

    def __call__(self, msg) -> None:
        value = self.key(msg)
        self.items.append(value)
        if value == self.last:
            self.done.set()


def test_baton_publisher_reaches_a_rospy_listener_exactly_once_in_order(roscore):
    listener = roscore.rospy("string-listener", "/py_chatter")
    listener.expect("ready", WAIT)
    node = ros1.Node("py_talker")
    pub = node.publisher("py_chatter", "std_msgs/String", queue_size=1000)
    assert pub.wait_for_subscribers(1, timeout=WAIT)
    for i in range(300):
        assert pub.publish({"data": f"msg {i}"}) == 1
    pub.publish(ros1.Message(data="end"))
    got = []
    while not got or got[-1] != "got end":
        got.append(listener.expect("got ", WAIT))
    assert got == [f"got msg {i}" for i in range(300)] + ["got end"]
    assert pub.stats["tcpros"]["serialized"] == 301  # once per message
    node.close()


def test_rospy_talker_reaches_a_baton_subscription_exactly_once_in_order(roscore):
    node = ros1.Node("py_listener")
    got = Collector()
    sub = node.subscription("/rospy_chatter", "std_msgs/String", got)
    talker = roscore.rospy("string-talker", "/rospy_chatter", "300")
    talker.expect("ready", WAIT)
    assert got.done.wait(WAIT), got.items[-3:]
    talker.wait_for("published", WAIT)
    assert got.items == [f"msg {i}" for i in range(300)] + ["end"]
    assert sub.stats["tcpros"]["received"] == 301
    node.close()


def test_a_4k_image_both_ways_has_equal_bytes(roscore, tmp_path: Path):
    data = _image_bytes(1)
    path = tmp_path / "frame.bin"
    path.write_bytes(data)
    node = ros1.Node("py_camera")

    # rospy -> baton
    received: list[tuple[str, dict]] = []
    arrived = threading.Event()

    def on_image(msg) -> None:
        received.append((hashlib.sha256(msg.data).hexdigest(), msg))
        arrived.set()

    node.subscription("/rospy_image", "sensor_msgs/Image", on_image)
    talker = roscore.rospy("image-talker", "/rospy_image", str(path))
    talker.expect("ready", WAIT)
    assert arrived.wait(WAIT)
    digest, msg = received[0]
    assert digest == hashlib.sha256(data).hexdigest()
    assert (msg.width, msg.height, msg.encoding, msg.step) == (W, H, "rgb8", W * 3)
    assert msg.header.frame_id == "camera"
    assert len(received) == 1

    # baton -> rospy: the array is published from a numpy buffer, viewed until serialized
    out = tmp_path / "got.bin"
    listener = roscore.rospy("image-listener", "/baton_image", str(out))
    listener.expect("ready", WAIT)
    pub = node.publisher("/baton_image", "sensor_msgs/Image")
    assert pub.wait_for_subscribers(1, timeout=WAIT)
    frame = np.frombuffer(data, np.uint8)
    pub.publish(
        {
            "header": {"seq": 7, "stamp": 12.5, "frame_id": "baton"},
            "height": H,
            "width": W,
            "encoding": "rgb8",
            "step": W * 3,
            "data": frame,
        }
    )
    line = listener.expect("image ", WAIT)
    assert line == f"image {W}x{H} rgb8 step {W * 3} seq 7 frame baton bytes {W * H * 3}"
    assert hashlib.sha256(out.read_bytes()).hexdigest() == hashlib.sha256(data).hexdigest()
    node.close()


def _shm_ranges() -> list[tuple[int, int]]:
    ranges = []
    for line in Path("/proc/self/maps").read_text().splitlines():
        fields = line.split()
        if len(fields) >= 6 and fields[5].startswith("/dev/shm/"):
            lo, hi = (int(x, 16) for x in fields[0].split("-"))
            ranges.append((lo, hi))
    return ranges


def _in_shm(a: np.ndarray) -> bool:
    """Whether the array's bytes lie inside one /dev/shm mapping of this process."""
    lo_a, hi_a = a.ctypes.data, a.ctypes.data + a.nbytes
    return any(lo <= lo_a and hi_a <= hi for lo, hi in _shm_ranges())


def test_baton_to_baton_reads_images_in_place_over_batonshm(roscore):
    a, b = ros1.Node("py_shm_pub"), ros1.Node("py_shm_sub")
    frames = [_image_bytes(10 + i) for i in range(4)]
    seen: list[tuple] = []
    done = threading.Event()

    def on_sample(sample) -> None:
        msg = sample.message(in_place=True)
        view = msg["data"]
        inside = _in_shm(np.frombuffer(view, np.uint8))  # the bytes' address, no copy
        seen.append(
            (sample.transport, msg["header"]["seq"], hashlib.sha256(view).hexdigest(), inside)
        )
        if len(seen) == len(frames):
            done.set()

    sub = b.subscription("/shm_image", "sensor_msgs/Image", on_sample, raw=True)
    pub = a.publisher("/shm_image", "sensor_msgs/Image")
    assert sub.wait_for_publishers(1, timeout=WAIT)
    for i, f in enumerate(frames):
        pub.publish({"header": {"seq": i}, "height": H, "width": W, "encoding": "rgb8", "data": f})
    assert done.wait(WAIT)
    assert seen == [
        ("BATONSHM", i, hashlib.sha256(f).hexdigest(), True) for i, f in enumerate(frames)
    ]
    # no TCP payload either way; serialized once per message, into shared memory
    assert sub.stats["tcpros"]["bytes"] == 0 and pub.stats["tcpros"]["bytes"] == 0
    assert pub.stats["shm"]["serialized"] == len(frames)
    assert sub.stats["shm"]["received"] == len(frames)
    a.close()
    b.close()


def test_another_process_baton_publisher_is_read_in_place_over_batonshm(roscore, peer):
    talker = peer("ros1_image_talker.py", "/proc_image", "5")
    talker.expect("ready", WAIT)
    node = ros1.Node("py_proc_sub")
    seen: list[tuple] = []
    done = threading.Event()

    def on_sample(sample) -> None:
        msg = sample.message(in_place=True)
        view = msg["data"]
        a = np.frombuffer(view, np.uint8)
        inside = _in_shm(a)
        seq = msg["header"]["seq"]
        seen.append((sample.transport, seq, inside, a.nbytes, bool((a == seq).all())))
        del a
        if len(seen) == 5:
            done.set()

    sub = node.subscription("/proc_image", "sensor_msgs/Image", on_sample, raw=True)
    assert sub.wait_for_publishers(1, timeout=WAIT)
    talker.proc.stdin.write(b"go\n")
    talker.proc.stdin.flush()
    assert done.wait(WAIT)
    assert seen == [("BATONSHM", i, True, W * H * 3, True) for i in range(5)]
    assert sub.stats["tcpros"]["bytes"] == 0
    node.close()


def test_a_sample_is_valid_during_its_callback_only(roscore):
    a, b = ros1.Node("py_keep_pub"), ros1.Node("py_keep_sub")
    kept = []
    refused = []
    done = threading.Event()

    def on_sample(sample) -> None:
        kept.append((sample, sample.message(in_place=True)["data"]))
        try:
            b.close()  # would wait for this very thread
        except baton.Ros1Error as e:
            refused.append(e.code)
        done.set()

    sub = b.subscription("/keep", "std_msgs/UInt8MultiArray", on_sample, raw=True)
    pub = a.publisher("/keep", "std_msgs/UInt8MultiArray")
    assert sub.wait_for_publishers(1, timeout=WAIT)
    pub.publish({"data": b"\x01\x02\x03"})
    assert done.wait(WAIT)
    assert refused == ["Ros1CloseInCallback"]
    sample, view = kept[0]
    assert not sample.valid
    with pytest.raises(baton.InvalidLoanError):
        sample.tobytes()
    with pytest.raises(ValueError):  # the memoryview was released when the callback returned
        bytes(view)
    a.close()
    b.close()


def test_names_follow_remapping_arguments_and_the_master_sees_them(roscore):
    node = ros1.Node("orig", argv=["prog", "__name:=renamed", "__ns:=/robot", "other:=x"])
    assert node.name == "/robot/renamed"
    assert node.resolve("chatter") == "/robot/chatter"
    assert node.master_uri == roscore.uri
    assert node.uri.startswith("http://127.0.0.1:")  # ROS_IP
    node.publisher("chatter", "std_msgs/String")
    publishers = dict(ros1.Master().system_state()["publishers"])
    assert publishers["/robot/chatter"] == ["/robot/renamed"]
    assert ros1.Master().topic_types()["/robot/chatter"] == "std_msgs/String"
    node.close()


def test_a_node_logs_to_its_log_and_registers_rosout_unless_told_not_to(roscore):
    node = ros1.Node("logger")
    silent = ros1.Node("silent", rosout=False)
    node.logdebug("a debug line")
    node.loginfo("an info line")
    node.logerr("an error line")
    assert [line for line in node.log() if "line" in line[1]] == [
        ("debug", "a debug line"),
        ("info", "an info line"),
        ("error", "an error line"),
    ]
    with pytest.raises(ValueError, match="none of debug, info, warn, error"):
        node._native.write_log("fatal", "no such level")
    rosout = dict(ros1.Master().system_state()["publishers"])["/rosout"]
    assert "/logger" in rosout and "/silent" not in rosout
    silent.close()
    node.close()


def test_ros_hostname_and_namespace_are_honoured_without_ros_ip(roscore, monkeypatch):
    monkeypatch.delenv("ROS_IP")
    monkeypatch.setenv("ROS_HOSTNAME", "localhost")
    monkeypatch.setenv("ROS_NAMESPACE", "/arm")
    node = ros1.Node("hostnamed")
    assert node.uri.startswith("http://localhost:")
    assert node.name == "/arm/hostnamed" and node.resolve("joint") == "/arm/joint"
    node.publisher("joint", "std_msgs/Float64")
    assert dict(ros1.Master().system_state()["publishers"])["/arm/joint"] == ["/arm/hostnamed"]
    node.close()


def test_no_master_is_a_clear_error(monkeypatch, ns):
    monkeypatch.delenv("ROS_MASTER_URI", raising=False)
    with pytest.raises(baton.Ros1NoMasterUriError) as e:
        ros1.Node("lonely")
    assert "ROS_MASTER_URI" in str(e.value) and "export ROS_MASTER_URI" in e.value.hint
    nobody = f"http://127.0.0.1:{free_port()}/"
    with pytest.raises(baton.Ros1MasterUnreachableError) as e:
        ros1.Node("lonely", master_uri=nobody)
    assert nobody in str(e.value) and "roscore" in e.value.hint
    with pytest.raises(baton.Ros1MasterUnreachableError):
        ros1.Master(nobody).pid()


def test_unknown_types_and_bad_messages_are_clear_errors(roscore):
    node = ros1.Node("py_errors")
    with pytest.raises(baton.Ros1UnknownTypeError) as e:
        node.publisher("x", "nope_msgs/Nothing")
    assert "nope_msgs" in str(e.value)
    with pytest.raises(baton.Ros1UnknownTypeError):
        node.subscription("x", "std_msgs/Nothing", lambda m: None)
    pub = node.publisher("x", "std_msgs/Header")
    with pytest.raises(baton.TypeMismatchError, match="'seq'.*out of range"):
        pub.publish({"seq": -1})
    with pytest.raises(baton.TypeMismatchError, match="no such field"):
        pub.publish({"sequence": 1})
    with pytest.raises(baton.Ros1DecodeError):
        ros1.deserialize("std_msgs/String", b"\xff\xff\xff\x7fabc")
    node.close()


def test_md5sum_mismatch_is_a_clear_error_on_both_ends(roscore):
    node = ros1.Node("py_md5", echo_log=False)
    talker = roscore.rospy("string-talker", "/typed", "0")
    talker.expect("ready", WAIT)
    sub = node.subscription("/typed", "std_msgs/Int32", lambda m: None)
    with pytest.raises(baton.Ros1Md5MismatchError) as e:
        sub.wait_for_publishers(1, timeout=WAIT)
    assert "md5sum" in str(e.value) and "same" in e.value.hint

    listener = roscore.rospy("string-listener", "/typed_out")
    listener.expect("ready", WAIT)
    pub = node.publisher("/typed_out", "std_msgs/Int32")
    with pytest.raises(baton.Ros1Md5MismatchError):
        pub.wait_for_subscribers(1, timeout=WAIT)
    node.close()


def test_codec_round_trips_and_matches_genpy_md5sums():
    t = ros1.message_type("sensor_msgs/Image")
    assert t["md5sum"] == "060021388200f6f0f447d0fcd9c64743"  # genpy's Image._md5sum
    assert "MSG: std_msgs/Header" in t["definition"]
    msg = {"header": {"seq": 3, "stamp": {"secs": 4, "nsecs": 5}, "frame_id": "f"}, "width": 2}
    back = ros1.deserialize("sensor_msgs/Image", ros1.serialize("sensor_msgs/Image", msg))
    assert back.header.stamp.nsecs == 5 and back.width == 2 and back.data == b""
    # a rospy-style object (fields as attributes) serializes as the dict does
    header = SimpleNamespace(seq=3, stamp=SimpleNamespace(secs=4, nsecs=5), frame_id="f")
    as_object = SimpleNamespace(header=header, width=2)
    assert ros1.serialize("sensor_msgs/Image", as_object) == ros1.serialize(
        "sensor_msgs/Image", msg
    )


def test_topic_list_shows_a_rospy_topic_with_its_nodes(roscore):
    talker = roscore.rospy("string-talker", "/cli_chatter", "0")
    talker.expect("ready", WAIT)
    node_name = f"/rospy_string_talker_{talker.proc.pid}"
    r = run_cli("topic", "list", check=True)
    assert (
        f"/cli_chatter [std_msgs/String] (ROS 1; publishers: {node_name}; subscribers: -)"
        in r.stdout.splitlines()
    )
    entries = json.loads(run_cli("topic", "list", "--format", "json", check=True).stdout)
    chatter = next(e for e in entries if e["name"] == "/cli_chatter")
    assert chatter["graph"] == "ros1" and chatter["types"] == ["std_msgs/String"]
    assert chatter["publishers"] == [node_name] and chatter["master_uri"] == roscore.uri
    r = run_cli("topic", "list", "--no-ros1", check=True)
    assert "/cli_chatter" not in r.stdout


def test_topic_list_without_a_master_lists_baton_topics_and_says_why(ns, monkeypatch):
    monkeypatch.setenv("ROS_MASTER_URI", f"http://127.0.0.1:{free_port()}/")
    r = run_cli("topic", "list", check=True)
    assert "note: ROS 1 topics not listed" in r.stderr and "no ROS master answers" in r.stderr
    monkeypatch.delenv("ROS_MASTER_URI")
    r = run_cli("topic", "list", check=True)
    assert "ROS 1" not in r.stderr


def _doctor_ros1_check() -> dict:
    r = run_cli("doctor", "--format", "json")
    return next(c for c in json.loads(r.stdout) if c["check"] == "ros1 master")


def test_doctor_checks_ros_master_uri(ns, monkeypatch, tmp_path, request):
    monkeypatch.delenv("ROS_MASTER_URI", raising=False)
    c = _doctor_ros1_check()
    assert c["status"] == "info" and "not set" in c["detail"]
    assert "export ROS_MASTER_URI" in c["hint"]

    nobody = f"http://127.0.0.1:{free_port()}/"
    monkeypatch.setenv("ROS_MASTER_URI", nobody)
    c = _doctor_ros1_check()
    assert c["status"] == "warn" and nobody in c["detail"]
    assert "no ROS master answers" in c["detail"]
    assert "roscore" in c["hint"]

    core = request.getfixturevalue("roscore")
    c = _doctor_ros1_check()
    assert c["status"] == "ok" and c["master_uri"] == core.uri
    cmdline = Path(f"/proc/{c['master_pid']}/cmdline").read_bytes()
    assert b"rosmaster" in cmdline  # the pid is the running master's
    assert f"pid {c['master_pid']}" in c["detail"]
    assert os.environ["ROS_MASTER_URI"] == core.uri
