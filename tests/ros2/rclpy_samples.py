"""Reference CDR samples from real rclpy (rmw_fastrtps_cpp), for tests/ros2/cdr_rclpy_test.cpp.

Run with .venv-ros's python (scripts/install-ros-wheels.sh):
  rclpy_samples.py write DIR   writes DIR/<sample>.cdr = rclpy.serialization.serialize_message
  rclpy_samples.py check DIR   reads DIR/<sample>.baton.cdr (written by baton's encoder),
                               deserializes it with rclpy and compares with the same sample
                               built here; exit 1 on any difference.
The C++ test builds the same values; keep both in step.
"""

import sys
from pathlib import Path

import numpy as np
from builtin_interfaces.msg import Time
from geometry_msgs.msg import PoseStamped
from rclpy.serialization import deserialize_message, serialize_message
from sensor_msgs.msg import Image, JointState
from std_msgs.msg import Empty, MultiArrayDimension, String, UInt8MultiArray


def samples():
    out = {}
    out["string"] = String(data="hello baton \u2713")
    m = UInt8MultiArray()
    m.layout.dim = [
        MultiArrayDimension(label="rows", size=3, stride=12),
        MultiArrayDimension(label="cols", size=4, stride=4),
    ]
    m.layout.data_offset = 5
    m.data = bytes(range(12))
    out["uint8_multi_array"] = m
    img = Image()
    img.header.stamp = Time(sec=1700000000, nanosec=123456789)
    img.header.frame_id = "camera"
    img.height, img.width, img.encoding, img.is_bigendian = 2160, 3840, "rgb8", 0
    img.step = 3840 * 3
    img.data = ((np.arange(2160 * 3840 * 3, dtype=np.uint64) * 7) % 251).astype(np.uint8).tobytes()
    out["image_4k"] = img
    p = PoseStamped()
    p.header.stamp = Time(sec=5, nanosec=6)
    p.header.frame_id = "map"
    p.pose.position.x, p.pose.position.y, p.pose.position.z = 1.5, -2.25, 3.0
    p.pose.orientation.z = p.pose.orientation.w = 0.7071067811865476
    out["pose_stamped"] = p
    out["time"] = Time(sec=-3, nanosec=999999999)
    j = JointState()
    j.header.frame_id = "base_link_"
    j.name = ["a", "bb", "ccc"]
    j.position = [1.0, 2.0, 3.0]
    j.velocity = []
    j.effort = [0.5]
    out["joint_state"] = j
    out["empty"] = Empty()
    return out


def main():
    mode, directory = sys.argv[1], Path(sys.argv[2])
    failed = False
    for name, msg in samples().items():
        ref = serialize_message(msg)
        if mode == "write":
            (directory / f"{name}.cdr").write_bytes(ref)
            continue
        path = directory / f"{name}.baton.cdr"
        if not path.exists():
            continue
        data = path.read_bytes()
        back = deserialize_message(data, type(msg))
        if back != msg:
            print(f"{name}: rclpy decodes baton's bytes to a different message", file=sys.stderr)
            failed = True
        else:
            print(f"{name}: ok ({len(data)} bytes)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
