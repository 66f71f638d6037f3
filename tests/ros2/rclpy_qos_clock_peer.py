"""rclpy peer for tests/ros2/rmw_baton_rclpy_qos_clock_test.cpp: plain rclpy code with deadline
and liveliness QoS and their event callbacks, run on rmw_baton_cpp (LD_PRELOAD +
RMW_IMPLEMENTATION).

  deadline_idle TOPIC TIMEOUT_S  a publisher and a subscription of std_msgs/String with a 100 ms
                                 deadline that never publish: prints "offered total=T change=C"
                                 and "requested total=T change=C" per deadline event; exit 0 once
                                 both counted 3 misses
  lease_talk TOPIC TIMEOUT_S     std_msgs/String publisher with manual-by-topic liveliness and a
                                 2 s lease; prints "lost total=T change=C" per liveliness-lost
                                 event and "matched" once a subscription is; asserts its
                                 liveliness every 100 ms while running. Stdin lines: "stop" (no
                                 more assertions), "run" (assert again), "end" (exit 0)
  lease_listen TOPIC TIMEOUT_S   std_msgs/String subscription asking for manual-by-topic
                                 liveliness with a 2 s lease; prints "changed alive=A
                                 not_alive=N alive_change=AC not_alive_change=NC" per liveliness
                                 event; exit 0 once its publisher came and left again
Every mode prints "ready" once its endpoints exist.
"""

import sys
import threading
import time

import rclpy
from rclpy.duration import Duration
from rclpy.event_handler import PublisherEventCallbacks, SubscriptionEventCallbacks
from rclpy.qos import LivelinessPolicy, QoSProfile

from peer_lifetime import die_with_parent

die_with_parent()

LEASE = QoSProfile(
    depth=10,
    liveliness=LivelinessPolicy.MANUAL_BY_TOPIC,
    liveliness_lease_duration=Duration(seconds=2),
)


def spin_until(node, deadline, done):
    while time.monotonic() < deadline and not done():
        rclpy.spin_once(node, timeout_sec=1.0)
    return done()


def deadline_idle(node, deadline, topic):
    from std_msgs.msg import String

    qos = QoSProfile(depth=10, deadline=Duration(seconds=0.1))
    totals = {"offered": 0, "requested": 0}

    def on(kind):
        def report(s):
            print(f"{kind} total={s.total_count} change={s.total_count_change}", flush=True)
            totals[kind] = s.total_count

        return report

    node.create_publisher(
        String, topic, qos, event_callbacks=PublisherEventCallbacks(deadline=on("offered"))
    )
    node.create_subscription(
        String,
        topic,
        lambda msg: None,
        qos,
        event_callbacks=SubscriptionEventCallbacks(deadline=on("requested")),
    )
    print("ready", flush=True)
    return 0 if spin_until(node, deadline, lambda: min(totals.values()) >= 3) else 1


def lease_talk(node, deadline, topic):
    from std_msgs.msg import String

    def on_lost(s):
        print(f"lost total={s.total_count} change={s.total_count_change}", flush=True)

    pub = node.create_publisher(
        String, topic, LEASE, event_callbacks=PublisherEventCallbacks(liveliness=on_lost)
    )
    state = {"asserting": True, "end": False}
    node.create_timer(0.1, lambda: state["asserting"] and pub.assert_liveliness())

    def read():
        for line in sys.stdin:
            command = line.strip()
            state["asserting"] = command == "run" or (command != "stop" and state["asserting"])
            state["end"] = state["end"] or command == "end"
        state["end"] = True

    threading.Thread(target=read, daemon=True).start()
    print("ready", flush=True)
    if not spin_until(node, deadline, lambda: pub.get_subscription_count() > 0):
        return 1
    print("matched", flush=True)
    return 0 if spin_until(node, deadline, lambda: state["end"]) else 1


def lease_listen(node, deadline, topic):
    from std_msgs.msg import String

    state = {"seen": False, "left": False}

    def on_changed(s):
        print(
            f"changed alive={s.alive_count} not_alive={s.not_alive_count} "
            f"alive_change={s.alive_count_change} not_alive_change={s.not_alive_count_change}",
            flush=True,
        )
        present = s.alive_count + s.not_alive_count
        state["left"] = state["seen"] and present == 0
        state["seen"] = state["seen"] or present > 0

    node.create_subscription(
        String,
        topic,
        lambda msg: None,
        LEASE,
        event_callbacks=SubscriptionEventCallbacks(liveliness=on_changed),
    )
    print("ready", flush=True)
    return 0 if spin_until(node, deadline, lambda: state["left"]) else 1


def main():
    mode, topic, timeout_s = sys.argv[1], sys.argv[2], float(sys.argv[3])
    rclpy.init()
    node = rclpy.create_node(f"clock_{mode}")
    deadline = time.monotonic() + timeout_s
    modes = {"deadline_idle": deadline_idle, "lease_talk": lease_talk, "lease_listen": lease_listen}
    code = modes[mode](node, deadline, topic)
    node.destroy_node()
    rclpy.try_shutdown()
    sys.exit(code)


if __name__ == "__main__":
    main()
