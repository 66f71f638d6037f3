"""rclpy publisher (run with .venv-ros's python, on rmw_baton_cpp) for test_bag_record_stamps.py:
a stream whose publisher stamps each message (rmw_baton_cpp's publishers set the source
timestamp), and what it stamped, read back by an rclpy subscription of its own.

  rclpy_stamped_talker.py TOPIC COUNT

A std_msgs/String publisher and subscription (reliable, keep last COUNT). Prints "ready" once
they exist, then waits for a line on stdin (the recorder has subscribed), publishes "m <i>" for i
< COUNT back to back, takes all COUNT back with their message info and prints
"stamps " and a JSON object {data: source_timestamp}; exits at the next line on stdin (or its
end), so its publisher outlives the recording.
"""

import json
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
    node = rclpy.create_node("baton_stamped_talker")
    qos = QoSProfile(depth=count, reliability=ReliabilityPolicy.RELIABLE)
    stamps = {}
    node.create_subscription(
        String, topic, lambda m, info: stamps.__setitem__(m.data, info["source_timestamp"]), qos
    )
    pub = node.create_publisher(String, topic, qos)
    print("ready", flush=True)
    sys.stdin.readline()
    for i in range(count):  # as fast as rclpy publishes: a stream the recorder takes in batches
        pub.publish(String(data=f"m {i}"))
    while len(stamps) < count:
        rclpy.spin_once(node, timeout_sec=1.0)
    print("stamps " + json.dumps(stamps), flush=True)
    sys.stdin.readline()
    node.destroy_node()
    rclpy.shutdown()


if __name__ == "__main__":
    main()
