"""rclpy peer (rmw_fastrtps_cpp) for tests/ros2/wire_native_test.cpp: the ROS 2 side of baton's
native ROS 2 endpoints (ros2::Participant / Node / Publisher / Subscription).

  graph NS NAME PUB_TOPIC SUB_TOPIC TIMEOUT_S  wait until rclpy's graph API shows node NS/NAME
      publishing PUB_TOPIC and endpoints on PUB_TOPIC and SUB_TOPIC; print what it sees
      ("node", "topic", "raw_topic" (no_demangle), "count_*", "pubinfo"/"subinfo", "by_node_*"
      lines); exit 0 when all is
      there, 1 on timeout
  count TOPIC N TIMEOUT_S [QOS...]  std_msgs/String subscriber; print "ready", "matched" once its
      subscription has matched a publisher (its matched event), then "got <data>" per message;
      after N distinct ones (or the timeout) wait 1 s more for duplicates and print
      "summary received=R unique=U"; exit 0 if R == U == N
  talk TOPIC N TIMEOUT_S [QOS...] [subs=K] [gated]  wait for K subscribers (default 1); when
      "gated", print "matched" and wait for a line on stdin (the test sends it once the readers
      have matched this writer too: DDS matches each side on its own); publish "rclpy <i>" for
      i < N, print "sent N", then stay until TIMEOUT_S (so reliable delivery completes; the
      test kills it)
  image-listen TOPIC TIMEOUT_S [COUNT]  sensor_msgs/Image subscriber (reliable, keep last 10);
      print "ready", then per image "image W H ENC STEP LEN bytes=equal|DIFFERENT frame=ID
      seq=S" (every byte compared with image-talk's pattern; S =
      header.stamp.sec); after COUNT images (default 1), the timeout, or 15 s without a new image
      once one came, print "received K"; exit 0 if K == COUNT
  image-talk TOPIC TIMEOUT_S [RATE_HZ [COUNT]]  wait for a subscriber, then publish COUNT
      (default 30) 3840x2160 rgb8 images, data[i] = (7 i + 13) mod 256, frame_id "rclpy_4k",
      header.stamp.sec = 0, 1, ..., at RATE_HZ (default 10: a camera) with reliable keep last 10;
      print "sent K", then stay until TIMEOUT_S (reliable repair goes on; the test kills it)
QOS: transient-local, best-effort, depth=<n> (default reliable, volatile, depth N).
The test sets ROS_DOMAIN_ID and ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST. Plain rclpy: it runs on
any RMW (tests/ros2/rmw_baton_wire_test.cpp runs it on rmw_baton_cpp as well).
"""

import sys
import time

import rclpy
from rclpy.event_handler import SubscriptionEventCallbacks
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import String

from peer_lifetime import die_with_parent

die_with_parent()


def qos_from(args, depth):
    qos = QoSProfile(depth=depth)
    for a in args:
        if a == "transient-local":
            qos.durability = DurabilityPolicy.TRANSIENT_LOCAL
        elif a == "best-effort":
            qos.reliability = ReliabilityPolicy.BEST_EFFORT
        elif a.startswith("depth="):
            qos.depth = int(a.split("=", 1)[1])
    return qos


def ns_of(d):
    return int(d.nanoseconds)


def endpoint_line(kind, topic, info):
    q = info.qos_profile
    gid = bytes(info.endpoint_gid).hex()
    return (
        f"{kind} {topic} node={info.node_namespace}|{info.node_name} type={info.topic_type} "
        f"hash={info.topic_type_hash} gid={gid} reliability={q.reliability.name} "
        f"durability={q.durability.name} deadline={ns_of(q.deadline)} "
        f"lifespan={ns_of(q.lifespan)} liveliness={q.liveliness.name} "
        f"lease={ns_of(q.liveliness_lease_duration)}"
    )


def graph(node, ns, name, pub_topic, sub_topic, deadline):
    while True:
        rclpy.spin_once(node, timeout_sec=0.2)
        nodes = node.get_node_names_and_namespaces()
        pubs = node.get_publishers_info_by_topic(pub_topic)
        subs = node.get_subscriptions_info_by_topic(sub_topic)
        # Endpoint infos name no node for Cyclone endpoints (see wire_native_test.cpp): wait
        # for the node, its endpoints by node, and the endpoints by topic.
        by_node = (name, ns) in nodes and any(
            t == pub_topic for t, _ in node.get_publisher_names_and_types_by_node(name, ns)
        )
        done = by_node and len(pubs) > 0 and len(subs) > 0
        if done or time.monotonic() >= deadline:
            break
    for n, s in nodes:
        print(f"node {s} {n}")
    for t, types in node.get_topic_names_and_types():
        print(f"topic {t} {','.join(types)}")
    for t, types in node.get_topic_names_and_types(no_demangle=True):
        print(f"raw_topic {t} {','.join(types)}")
    print(f"count_publishers {pub_topic} {node.count_publishers(pub_topic)}")
    print(f"count_subscribers {sub_topic} {node.count_subscribers(sub_topic)}")
    for p in pubs:
        print(endpoint_line("pubinfo", pub_topic, p))
    for s in subs:
        print(endpoint_line("subinfo", sub_topic, s))
    if (name, ns) in nodes:
        for t, types in node.get_publisher_names_and_types_by_node(name, ns):
            print(f"by_node_publishers {t} {','.join(types)}")
        for t, types in node.get_subscriber_names_and_types_by_node(name, ns):
            print(f"by_node_subscribers {t} {','.join(types)}")
    return 0 if done else 1


def count(node, topic, want, qos, deadline):
    got = []
    matched = []

    def on_matched(status):
        if status.current_count > 0 and not matched:
            matched.append(True)
            print("matched", flush=True)

    node.create_subscription(
        String,
        topic,
        lambda m: got.append(m.data),
        qos,
        event_callbacks=SubscriptionEventCallbacks(matched=on_matched),
    )
    print("ready", flush=True)
    seen = 0
    while time.monotonic() < deadline and len(set(got)) < want:
        rclpy.spin_once(node, timeout_sec=0.05)
        for d in got[seen:]:
            print(f"got {d}", flush=True)
        seen = len(got)
    linger = time.monotonic() + 1.0  # duplicates would arrive now
    while time.monotonic() < linger:
        rclpy.spin_once(node, timeout_sec=0.05)
    for d in got[seen:]:
        print(f"got {d}", flush=True)
    print(f"summary received={len(got)} unique={len(set(got))}", flush=True)
    return 0 if len(got) == len(set(got)) == want else 1


def talk(node, topic, n, qos, deadline, subs=1, gated=False):
    pub = node.create_publisher(String, topic, qos)
    print("ready", flush=True)
    while pub.get_subscription_count() < subs and time.monotonic() < deadline:
        rclpy.spin_once(node, timeout_sec=0.05)
    if gated:
        print("matched", flush=True)
        sys.stdin.readline()
    for i in range(n):
        pub.publish(String(data=f"rclpy {i}"))
        time.sleep(0.01)
    print(f"sent {n}", flush=True)
    while time.monotonic() < deadline:
        rclpy.spin_once(node, timeout_sec=0.1)
    return 0


IMAGE_QOS = 10  # reliable, volatile, keep last 10: a camera stream's usual QoS
IMAGE_IDLE_S = 15.0


def image_pattern():
    """The 4K test image's bytes: data[i] = (7 i + 13) mod 256 (tests/ros2/image_4k.hpp)."""
    import numpy as np

    return ((np.arange(3840 * 2160 * 3, dtype=np.uint64) * 7 + 13) % 256).astype(np.uint8)


def same_bytes(np, data, expected):
    """Every byte of buffer `data` equals numpy array `expected`, compared in place: the
    temporary a numpy comparison allocates (24.9 MB for a 4K image) costs about 6 000 page faults
    under ASan, where this listener runs at camera rate with keep last 10."""
    import ctypes

    view = np.frombuffer(data, np.uint8)
    if view.size != expected.size:
        return False
    memcmp = ctypes.CDLL(None).memcmp
    memcmp.restype = ctypes.c_int
    memcmp.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
    return view.size == 0 or memcmp(view.ctypes.data, expected.ctypes.data, view.size) == 0


def image_listen(node, topic, deadline, want=1):
    import numpy as np
    from sensor_msgs.msg import Image

    expected = image_pattern()  # every byte of every image is compared with it (memcmp)
    got = []
    node.create_subscription(Image, topic, got.append, IMAGE_QOS)
    print("ready", flush=True)
    received = 0
    last = time.monotonic()
    # Until COUNT images, the timeout, or IMAGE_IDLE_S without a new image once some came (the
    # talker is done; a lost one would keep the test waiting for the whole timeout).
    while received < want and time.monotonic() < deadline:
        if received and time.monotonic() - last > IMAGE_IDLE_S:
            break
        rclpy.spin_once(node, timeout_sec=0.1)
        if got:
            last = time.monotonic()
        for m in got:
            equal = same_bytes(np, m.data, expected)
            print(
                f"image {m.width} {m.height} {m.encoding} {m.step} {len(m.data)} "
                f"bytes={'equal' if equal else 'DIFFERENT'} "
                f"frame={m.header.frame_id} seq={m.header.stamp.sec}",
                flush=True,
            )
        received += len(got)
        got.clear()
    print(f"received {received}", flush=True)
    return 0 if received >= want else 1


def image_talk(node, topic, deadline, rate_hz=10.0, count=30):
    from sensor_msgs.msg import Image

    pub = node.create_publisher(Image, topic, IMAGE_QOS)
    w, h = 3840, 2160
    data = image_pattern()
    msg = Image(height=h, width=w, encoding="rgb8", is_bigendian=0, step=w * 3)
    msg.header.frame_id = "rclpy_4k"
    msg.data = data.tobytes()
    while pub.get_subscription_count() == 0 and time.monotonic() < deadline:
        rclpy.spin_once(node, timeout_sec=0.05)
    start = time.monotonic()
    for seq in range(int(count)):
        time.sleep(max(0.0, start + seq / rate_hz - time.monotonic()))
        msg.header.stamp.sec = seq
        pub.publish(msg)
    print(f"sent {int(count)}", flush=True)
    while time.monotonic() < deadline:
        rclpy.spin_once(node, timeout_sec=0.1)
    return 0


def main():
    mode = sys.argv[1]
    timeout_arg = {"graph": 6, "count": 4, "talk": 4}.get(mode, 3)
    deadline = time.monotonic() + float(sys.argv[timeout_arg])
    rclpy.init()
    node = rclpy.create_node("baton_native_peer")
    if mode == "graph":
        code = graph(node, sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], deadline)
    elif mode in ("count", "talk"):
        n = int(sys.argv[3])
        qos = qos_from(sys.argv[5:], depth=max(n, 1))
        if mode == "count":
            code = count(node, sys.argv[2], n, qos, deadline)
        else:
            subs = [int(a.split("=", 1)[1]) for a in sys.argv[5:] if a.startswith("subs=")]
            gated = "gated" in sys.argv[5:]
            code = talk(node, sys.argv[2], n, qos, deadline, *subs[-1:], gated=gated)
    elif mode == "image-listen":
        code = image_listen(node, sys.argv[2], deadline, *map(int, sys.argv[4:5]))
    else:
        code = image_talk(node, sys.argv[2], deadline, *map(float, sys.argv[4:6]))
    sys.stdout.flush()
    node.destroy_node()
    rclpy.shutdown()
    sys.exit(code)


if __name__ == "__main__":
    main()
