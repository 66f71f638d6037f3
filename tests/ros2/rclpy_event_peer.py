"""rclpy peer for tests/ros2/rmw_baton_rclpy_event_test.cpp: plain rclpy code with QoS event
callbacks and loanable types, run on rmw_baton_cpp (LD_PRELOAD + RMW_IMPLEMENTATION).

  event_listen TOPIC COUNT TIMEOUT_S  best-effort keep-last-5 std_msgs/String subscription with
                                      SubscriptionEventCallbacks(matched=, message_lost=) and a
                                      slow callback (it lags a fast publisher); prints
                                      "matched total=T total_change=TC current=C current_change=CC"
                                      and "lost total=T total_change=TC" per event, publishes "done"
                                      on TOPIC/ack once message COUNT-1 arrived, and after its
                                      publisher left (current 0) prints
                                      "summary received=R lost=L last=K"; exit 0
  fast_talk TOPIC COUNT TIMEOUT_S     best-effort keep-last-5 publisher: once a subscription is
                                      matched, publishes "0".."COUNT-1" as fast as it can, then
                                      waits for "done" on TOPIC/ack and leaves
  point_listen TOPIC COUNT TIMEOUT_S  geometry_msgs/Point subscription; prints "point x y z" per
                                      message (repr of the floats), exit 0 after COUNT
Every mode prints "ready" once its endpoints exist.
"""

import sys
import time

import rclpy
from rclpy.event_handler import SubscriptionEventCallbacks
from rclpy.qos import QoSProfile, ReliabilityPolicy

from peer_lifetime import die_with_parent

die_with_parent()

BEST_EFFORT_5 = QoSProfile(depth=5, reliability=ReliabilityPolicy.BEST_EFFORT)


def spin_until(node, deadline, done):
    while time.monotonic() < deadline and not done():
        rclpy.spin_once(node, timeout_sec=0.05)
    return done()


def event_listen(node, deadline, topic, count):
    from std_msgs.msg import String

    state = {"received": 0, "lost": 0, "last": -1, "acked": False, "left": False, "seen": False}
    ack = node.create_publisher(String, topic + "/ack", 10)

    def on_message(msg):
        time.sleep(0.002)  # slower than the publisher: it laps us
        state["received"] += 1
        state["last"] = int(msg.data)

    def on_matched(s):
        print(
            f"matched total={s.total_count} total_change={s.total_count_change} "
            f"current={s.current_count} current_change={s.current_count_change}",
            flush=True,
        )
        state["seen"] = state["seen"] or s.current_count > 0
        state["left"] = state["seen"] and s.current_count == 0

    def on_lost(s):
        print(f"lost total={s.total_count} total_change={s.total_count_change}", flush=True)
        state["lost"] = s.total_count

    callbacks = SubscriptionEventCallbacks(matched=on_matched, message_lost=on_lost)
    node.create_subscription(String, topic, on_message, BEST_EFFORT_5, event_callbacks=callbacks)
    print("ready", flush=True)

    def done():
        if state["last"] == count - 1 and not state["acked"]:
            ack.publish(String(data="done"))  # the talker may leave now: we have the last one
            state["acked"] = True
        return state["acked"] and state["left"]

    # The talker leaves only after our ack, i.e. after we took its last message, so every lost
    # event of ours was reported before its departure was.
    ok = spin_until(node, deadline, done)
    print(
        f"summary received={state['received']} lost={state['lost']} last={state['last']}",
        flush=True,
    )
    return 0 if ok else 1


def fast_talk(node, deadline, topic, count):
    from std_msgs.msg import String

    done = []
    node.create_subscription(String, topic + "/ack", lambda m: done.append(m.data), 10)
    pub = node.create_publisher(String, topic, BEST_EFFORT_5)
    print("ready", flush=True)
    if not spin_until(node, deadline, lambda: pub.get_subscription_count() > 0):
        return 1
    for i in range(count):
        pub.publish(String(data=str(i)))
    print("published", count, flush=True)
    return 0 if spin_until(node, deadline, lambda: bool(done)) else 1


def point_listen(node, deadline, topic, count):
    from geometry_msgs.msg import Point

    got = []
    node.create_subscription(Point, topic, got.append, 10)
    print("ready", flush=True)
    seen = 0
    while time.monotonic() < deadline and seen < count:
        rclpy.spin_once(node, timeout_sec=0.05)
        while got:
            p = got.pop(0)
            print("point", repr(p.x), repr(p.y), repr(p.z), flush=True)
            seen += 1
    return 0 if seen >= count else 1


def main(argv):
    mode = argv[1]
    rclpy.init()
    node = rclpy.create_node("event_peer_" + mode)
    try:
        topic, count, timeout = argv[2], int(argv[3]), float(argv[4])
        deadline = time.monotonic() + timeout
        modes = {"event_listen": event_listen, "fast_talk": fast_talk, "point_listen": point_listen}
        return modes[mode](node, deadline, topic, count)
    finally:
        node.destroy_node()
        rclpy.shutdown()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
