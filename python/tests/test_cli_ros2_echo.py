"""`baton topic echo` of a topic of a ROS 2 type: CDR bytes made by real rclpy (.venv-ros) are
printed field by field as `ros2 topic echo` prints them; without the type's .msg, or with bytes
that do not decode, the message is shown as bytes with a note (never a traceback)."""

from __future__ import annotations

import json
import os
import subprocess
import threading

import pytest

import baton

from conftest import ROOT, run_cli

ROS_VENV = ROOT / ".venv-ros"

SERIALIZE = """
from rclpy.serialization import serialize_message
from std_msgs.msg import Header, Int32MultiArray, MultiArrayDimension
h = Header(); h.frame_id = "map"; h.stamp.sec = 5; h.stamp.nanosec = 7
a = Int32MultiArray(data=[1, 2, 3, 4, 5, 6])
a.layout.dim = [MultiArrayDimension(label="rows", size=2, stride=6),
                MultiArrayDimension(label="cols", size=3, stride=3)]
print(serialize_message(h).hex()); print(serialize_message(a).hex())
"""


@pytest.fixture(scope="module")
def cdr() -> dict:
    """CDR bytes of two std_msgs messages, serialized by rclpy (rmw_fastrtps_cpp)."""
    if not (ROS_VENV / "bin" / "python").exists():
        pytest.skip("no .venv-ros with rclpy: run scripts/install-ros-wheels.sh")
    out = subprocess.run(
        [str(ROS_VENV / "bin" / "python"), "-c", SERIALIZE],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout.split()  # fmt: skip
    return {"header": bytes.fromhex(out[0]), "multi": bytes.fromhex(out[1])}


class Publishing:
    """Publishes `data` on `topic` (type `type_name`) every 20 ms until stopped."""

    def __init__(self, ctx, topic: str, type_name: str, data: bytes):
        node = baton.Node(ctx, "ros2_talker")
        self.pub = node.raw_publisher(topic, type_name).qos(baton.QoS(5).best_effort()).create()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(data,))
        self.thread.start()

    def _run(self, data: bytes) -> None:
        while not self.stop.wait(0.02):
            self.pub.publish(data)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join()


def ros_env() -> dict:
    return dict(os.environ, AMENT_PREFIX_PATH=str(ROS_VENV))


def test_echo_of_header_prints_fields_like_ros2(ctx, cdr):
    with Publishing(ctx, "/hdr", "std_msgs/msg/Header", cdr["header"]):
        r = run_cli("topic", "echo", "/hdr", "--once", check=True, env=ros_env())
    assert r.stdout == "stamp:\n  sec: 5\n  nanosec: 7\nframe_id: map\n---\n"


def test_echo_of_nested_arrays_and_json(ctx, cdr):
    with Publishing(ctx, "/multi", "std_msgs/msg/Int32MultiArray", cdr["multi"]):
        r = run_cli("topic", "echo", "/multi", "--once", check=True, env=ros_env())
        j = run_cli("topic", "echo", "/multi", "--once", "--format", "json", check=True,
                    env=ros_env())  # fmt: skip
    assert r.stdout.splitlines() == [
        "layout:",
        "  dim:",
        "  - label: rows",
        "    size: 2",
        "    stride: 6",
        "  - label: cols",
        "    size: 3",
        "    stride: 3",
        "  data_offset: 0",
        "data: [1, 2, 3, 4, 5, 6]",
        "---",
    ]
    msg = json.loads(j.stdout.splitlines()[0])
    assert msg["type"] == "std_msgs/msg/Int32MultiArray" and msg["message"]["data"] == [
        1,
        2,
        3,
        4,
        5,
        6,
    ]


def test_echo_without_the_msg_files_shows_bytes_and_says_why(ctx, cdr):
    env = {k: v for k, v in os.environ.items() if k != "AMENT_PREFIX_PATH"}
    with Publishing(ctx, "/hdr", "std_msgs/msg/Header", cdr["header"]):
        r = run_cli("topic", "echo", "/hdr", "--once", check=True, env=env)
    assert "note: shown as bytes" in r.stderr and "AMENT_PREFIX_PATH" in r.stderr
    assert "6d 61 70" in r.stdout  # "map", in the hex dump
    assert "Traceback" not in r.stderr


def test_echo_of_truncated_cdr_shows_bytes(ctx, cdr):
    with Publishing(ctx, "/hdr", "std_msgs/msg/Header", cdr["header"][:9]):
        r = run_cli("topic", "echo", "/hdr", "--once", check=True, env=ros_env())
    assert "note: shown as bytes" in r.stderr and "nanosec" in r.stderr
    assert "Traceback" not in r.stderr
