"""rclpy publisher (run with .venv-ros's python) for test_bag_ros2_hash.py: the ROS 2 side of a
recording, on whatever RMW the test gives it (rmw_baton_cpp through LD_PRELOAD +
RMW_IMPLEMENTATION: its topic carries the type's RIHS01 hash).

  rclpy_bag_talker.py TOPIC COUNT

A std_msgs/String publisher (reliable, keep last 100). Prints "ready" once it exists, then waits
for a line on stdin (the recorder has subscribed), publishes COUNT messages "hello <i>", prints
"published COUNT", and exits at the next line on stdin (or its end), so its publisher outlives
the recording.
"""

import sys
from pathlib import Path

import rclpy
from rclpy.qos import QoSProfile, ReliabilityPolicy
from std_msgs.msg import String

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests" / "ros2"))
from peer_lifetime import die_with_parent  # noqa: E402

die_with_parent()


def main():
    topic, count = sys.argv[1], int(sys.argv[2])
    rclpy.init()
    node = rclpy.create_node("baton_bag_talker")
    pub = node.create_publisher(
        String, topic, QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
    )
    print("ready", flush=True)
    sys.stdin.readline()
    for i in range(count):
        pub.publish(String(data=f"hello {i}"))
    print(f"published {count}", flush=True)
    sys.stdin.readline()
    node.destroy_node()
    rclpy.shutdown()


if __name__ == "__main__":
    main()
