"""rclpy peer for tests/ros2/rmw_baton_rclpy_content_filter_test.cpp: plain rclpy code with a
content-filtered subscription, run on rmw_baton_cpp (LD_PRELOAD + RMW_IMPLEMENTATION); its
publisher runs on rmw_baton_cpp or on the wheels' Fast DDS.

  filtered_listen TOPIC TIMEOUT_S  reliable std_msgs/Int32 subscription created with
                                   ContentFilterOptions("data BETWEEN %0 AND %1", ["10", "19"]);
                                   prints "cft <is_cft_enabled>" and "ready", "matched <n>" per
                                   matched event (n publishers now), then "got <n>" per message.
                                   Once it got 19 it sets the filter
                                   "data > %0 AND data <> %1" with ["100", "102"], prints
                                   "refiltered <expression> <parameters,...>" (read back with
                                   get_content_filter); exit 0 once it got 105
  burst_talk TOPIC TIMEOUT_S       reliable std_msgs/Int32 publisher; prints "matched" once a
                                   subscription is matched, then for each stdin line "A B"
                                   publishes A..B at once and prints "sent A B"; "ping N"
                                   publishes N every 100 ms until the next line (a Fast DDS
                                   writer's first samples can be lost to a CycloneDDS reader that
                                   has not seen its heartbeat yet: ROADMAP.md); exit 0 on a line
                                   "end"
"""

import sys
import threading
import time

import rclpy
from rclpy.event_handler import SubscriptionEventCallbacks
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rclpy.subscription_content_filter_options import ContentFilterOptions

from peer_lifetime import die_with_parent

die_with_parent()

RELIABLE_100 = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)


def filtered_listen(node, deadline, topic):
    from std_msgs.msg import Int32

    state = {"last": None, "refiltered": False}
    sub = None

    def on_message(msg):
        print(f"got {msg.data}", flush=True)
        state["last"] = msg.data
        if msg.data == 19 and not state["refiltered"]:
            sub.set_content_filter("data > %0 AND data <> %1", ["100", "102"])
            options = sub.get_content_filter()
            params = ",".join(options.expression_parameters)
            print(f"refiltered {options.filter_expression} {params}", flush=True)
            state["refiltered"] = True

    options = ContentFilterOptions(
        filter_expression="data BETWEEN %0 AND %1", expression_parameters=["10", "19"]
    )
    # The matched event: over DDS each side matches on its own, and a sample sent before this
    # reader matched the writer is lost.
    matched = SubscriptionEventCallbacks(
        matched=lambda s: print(f"matched {s.current_count}", flush=True)
    )
    sub = node.create_subscription(
        Int32,
        topic,
        on_message,
        RELIABLE_100,
        content_filter_options=options,
        event_callbacks=matched,
    )
    print(f"cft {sub.is_cft_enabled}", flush=True)
    print("ready", flush=True)
    while time.monotonic() < deadline and state["last"] != 105:
        rclpy.spin_once(node, timeout_sec=0.05)
    return 0 if state["last"] == 105 else 1


def burst_talk(node, deadline, topic):
    from std_msgs.msg import Int32

    pub = node.create_publisher(Int32, topic, RELIABLE_100)
    print("ready", flush=True)
    while time.monotonic() < deadline and pub.get_subscription_count() == 0:
        rclpy.spin_once(node, timeout_sec=0.05)
    if pub.get_subscription_count() == 0:
        return 1
    print("matched", flush=True)
    lines = []
    done = threading.Event()

    def read():
        for line in sys.stdin:
            lines.append(line)
        done.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    ping = None
    while time.monotonic() < deadline:
        while lines:
            line = lines.pop(0).strip()
            ping = None
            if line == "end":
                return 0
            if line.startswith("ping "):
                ping = int(line.split()[1])
                continue
            first, last = (int(x) for x in line.split())
            for n in range(first, last + 1):
                pub.publish(Int32(data=n))
            print(f"sent {first} {last}", flush=True)
        if ping is not None:
            pub.publish(Int32(data=ping))
        if done.is_set() and not lines:
            return 1  # stdin closed without "end"
        rclpy.spin_once(node, timeout_sec=0.1)
    return 1


def main():
    mode, topic, timeout_s = sys.argv[1], sys.argv[2], float(sys.argv[3])
    rclpy.init()
    node = rclpy.create_node(f"cft_{mode}")
    deadline = time.monotonic() + timeout_s
    code = {"filtered_listen": filtered_listen, "burst_talk": burst_talk}[mode](
        node, deadline, topic
    )
    node.destroy_node()
    rclpy.try_shutdown()
    sys.exit(code)


if __name__ == "__main__":
    main()
