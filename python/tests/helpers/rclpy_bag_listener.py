"""rclpy subscriber (run with .venv-ros's python, rmw_fastrtps_cpp) for test_bag_wire.py: the
ROS 2 side of `baton bag play --wire`.

  rclpy_bag_listener.py TOPIC:TYPE[:transient-local] ...

One raw subscription per topic (reliable, keep last 100; volatile unless marked), so each message
is seen exactly as it came over the wire. Prints "ready" once all exist, "matched TOPIC" when a
subscription's matched event reports a publisher, and per message "msg TOPIC SHA256 LEN" (its CDR
bytes) followed, for std_msgs/String, by "data TOPIC VALUE". A line on stdin ends it: it prints
"end" and exits. The test sets ROS_DOMAIN_ID and ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST.
"""

import hashlib
import importlib
import select
import sys
from pathlib import Path

import rclpy
from rclpy.event_handler import SubscriptionEventCallbacks
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rclpy.serialization import deserialize_message

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests" / "ros2"))
from peer_lifetime import die_with_parent  # noqa: E402

die_with_parent()


def message_class(type_name: str):
    pkg, _, name = type_name.split("/")
    return getattr(importlib.import_module(f"{pkg}.msg"), name)


def subscribe(node, spec: str):
    topic, type_name, *marks = spec.split(":")
    cls = message_class(type_name)
    qos = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
    if "transient-local" in marks:
        qos.durability = DurabilityPolicy.TRANSIENT_LOCAL
    matched = []

    def on_matched(status):
        if status.current_count > 0 and not matched:
            matched.append(True)
            print(f"matched {topic}", flush=True)

    def on_message(raw: bytes):
        print(f"msg {topic} {hashlib.sha256(raw).hexdigest()} {len(raw)}", flush=True)
        if type_name == "std_msgs/msg/String":
            print(f"data {topic} {deserialize_message(raw, cls).data}", flush=True)

    return node.create_subscription(
        cls,
        topic,
        on_message,
        qos,
        raw=True,
        event_callbacks=SubscriptionEventCallbacks(matched=on_matched),
    )


def main():
    rclpy.init()
    node = rclpy.create_node("baton_bag_listener")
    subs = [subscribe(node, spec) for spec in sys.argv[1:]]
    print("ready", flush=True)
    while not select.select([sys.stdin], [], [], 0)[0]:
        rclpy.spin_once(node, timeout_sec=0.05)
    print("end", flush=True)
    del subs
    node.destroy_node()
    rclpy.shutdown()


if __name__ == "__main__":
    main()
