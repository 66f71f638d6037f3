"""rclpy peer for tests/ros2/rmw_baton_endpoint_qos_test.cpp: what `ros2 topic info -v` shows of
endpoints with default and SYSTEM_DEFAULT QoS (issue 22 item 4).

  TOPIC  node qos_info_peer with three endpoints on TOPIC (std_msgs/String): publisher
         "default" (rclpy's default profile, depth 10), publisher "system"
         (qos_profile_system_default: every policy left to the middleware), subscription "custom"
         (best effort, transient local, keep last 3); waits until get_publishers_info_by_topic /
         get_subscriptions_info_by_topic list them, then prints the "QoS profile:" block of each
         as "<label> <line>", exit 0; 1 if they are not all listed within 30 s
"""

import sys
import time

import rclpy
from rclpy.qos import (
    DurabilityPolicy,
    QoSProfile,
    ReliabilityPolicy,
    qos_profile_system_default,
)
from std_msgs.msg import String

from peer_lifetime import die_with_parent

die_with_parent()


def qos_lines(info):
    """The QoS lines of TopicEndpointInfo's text (what ros2 topic info -v prints)."""
    text = str(info)
    return [line.strip() for line in text[text.index("QoS profile:") :].splitlines()[1:]]


def main(topic):
    rclpy.init()
    node = rclpy.create_node("qos_info_peer")
    # Each endpoint is told apart by its depth as listed: 10, the system default's, and 3.
    node.create_publisher(String, topic, 10)
    node.create_publisher(String, topic, qos_profile_system_default)
    custom = QoSProfile(
        depth=3,
        reliability=ReliabilityPolicy.BEST_EFFORT,
        durability=DurabilityPolicy.TRANSIENT_LOCAL,
    )
    node.create_subscription(String, topic, lambda msg: None, custom)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        pubs = node.get_publishers_info_by_topic(topic)
        subs = node.get_subscriptions_info_by_topic(topic)
        if len(pubs) == 2 and len(subs) == 1:
            break
        rclpy.spin_once(node, timeout_sec=0.05)
    else:
        print(f"listed {len(pubs)} publishers, {len(subs)} subscriptions", flush=True)
        return 1
    pubs.sort(key=lambda i: i.qos_profile.depth != 10)  # "default" first
    for label, info in zip(["default", "system", "custom"], pubs + subs):
        for line in qos_lines(info):
            print(label, line, flush=True)
    node.destroy_node()
    rclpy.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
