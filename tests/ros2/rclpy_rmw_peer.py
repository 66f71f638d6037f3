"""rclpy peer for tests/ros2/rmw_baton_rclpy_test.cpp: plain rclpy code that runs on whatever RMW
the process is given (rmw_baton_cpp via LD_PRELOAD + RMW_IMPLEMENTATION, or the wheels' Fast DDS).

  listen TOPIC COUNT TIMEOUT_S       print each std_msgs/String received ("got <data>"), exit 0
                                     after COUNT of them, 1 on timeout
  talk TOPIC TIMEOUT_S               publish "msg <n>" every 50 ms until TIMEOUT_S
  image_listen TOPIC COUNT TIMEOUT_S receive sensor_msgs/Image, compare every byte with the
                                     pattern image_talk sends; print "image <seq> equal|DIFFERENT
                                     <sha256>"
  image_talk TOPIC TIMEOUT_S         publish a 3840x2160 rgb8 Image (24,883,200 bytes) every 200 ms
  serialize                          print "<name> <hex>" of serialize_message for fixed samples
  graph_target TIMEOUT_S             node /graph_ns/target: publisher /graph_pub (String),
                                     subscription /graph_sub (Image); spin until TIMEOUT_S
  graph_query TIMEOUT_S              wait until /graph_ns/target is listed, print the graph as JSON
  param_server TIMEOUT_S             node param_node with parameter answer=42; spin until TIMEOUT_S
  param_call TIMEOUT_S               call /param_node/get_parameters (rcl_interfaces GetParameters)
                                     and print "answer <value>"
  watch TOPIC TIMEOUT_S              subscribe to std_msgs/String TOPIC, spin until TIMEOUT_S, then
                                     print "received <n>" and "nodes <json list of ns|name>"
  stamped_talk TOPIC TIMEOUT_S       publish String(data=<time.time_ns() just before publish>) every
                                     50 ms until TIMEOUT_S
  info_listen TOPIC TIMEOUT_S        take one String with its message info; print "gid <hex>" (the
                                     info's publisher gid), "info_gid <hex>" per publisher that
                                     get_publishers_info_by_topic lists, "source <ns>",
                                     "received <ns>", "sent <ns>" (the data)
  svc_server SERVICE TIMEOUT_S        node /svc_ns/svc_server with service SERVICE (rcl_interfaces
                                     GetParameters) answering each name n with the string value
                                     "served:n"; prints "served <n>" per name and "clients <n>" each
                                     time the graph's count of its clients changes; spin until
                                     TIMEOUT_S
  svc_call SERVICE COUNT TIMEOUT_S   wait for SERVICE, print "available", wait for a line on stdin
                                     (the test sends it once the server has seen this client: DDS
                                     matches each side on its own, and a volatile request reaching
                                     a reader that has not matched its writer is lost), send COUNT
                                     requests at once (names q0..),
                                     print "reply <n> ok|WRONG <value>" per response and
                                     "summary replies=<k> ok=<m>"; exit 0 when all COUNT are ok,
                                     1 ("service not available" / "no response") otherwise
  svc_graph SERVICE TIMEOUT_S        wait until SERVICE is listed, print "service <name> <type>"
                                     per service and "by_node <name> <type>" per service of node
                                     /svc_ns/svc_server
Every mode prints "ready" once its endpoints exist.
"""

import hashlib
import json
import sys
import time

import rclpy
from rclpy.serialization import serialize_message

from peer_lifetime import die_with_parent

die_with_parent()

W, H = 3840, 2160


def image_pattern(seq):
    import numpy as np

    base = np.arange(W * H * 3, dtype=np.uint32)
    return ((base * 7 + seq) % 251).astype(np.uint8).tobytes()


def spin_until(node, deadline, done):
    while time.monotonic() < deadline and not done():
        rclpy.spin_once(node, timeout_sec=0.05)
    return done()


def listen(node, deadline, topic, want):
    from std_msgs.msg import String

    got = []
    node.create_subscription(String, topic, lambda m: got.append(m.data), 10)
    print("ready", flush=True)
    seen = 0
    while time.monotonic() < deadline and seen < want:
        rclpy.spin_once(node, timeout_sec=0.05)
        while got:
            print("got", got.pop(0), flush=True)
            seen += 1
    return 0 if seen >= want else 1


def talk(node, deadline, topic):
    from std_msgs.msg import String

    pub = node.create_publisher(String, topic, 10)
    print("ready", flush=True)
    n = 0
    while time.monotonic() < deadline:
        pub.publish(String(data=f"msg {n}"))
        n += 1
        rclpy.spin_once(node, timeout_sec=0.05)
    return 0


def image_listen(node, deadline, topic, want):
    from sensor_msgs.msg import Image

    got = []
    node.create_subscription(Image, topic, got.append, 2)
    print("ready", flush=True)
    seen = 0
    while time.monotonic() < deadline and seen < want:
        rclpy.spin_once(node, timeout_sec=0.05)
        while got:
            m = got.pop(0)
            seq = int(m.header.frame_id)
            data = bytes(m.data)
            ok = (
                m.width == W
                and m.height == H
                and m.encoding == "rgb8"
                and m.step == W * 3
                and data == image_pattern(seq)
            )
            digest = hashlib.sha256(data).hexdigest()
            print("image", seq, "equal" if ok else "DIFFERENT", digest, flush=True)
            seen += 1
    return 0 if seen >= want else 1


def image_talk(node, deadline, topic):
    from sensor_msgs.msg import Image

    pub = node.create_publisher(Image, topic, 2)
    print("ready", flush=True)
    seq = 0
    while time.monotonic() < deadline:
        m = Image(height=H, width=W, encoding="rgb8", is_bigendian=0, step=W * 3)
        m.header.frame_id = str(seq)
        m.data = image_pattern(seq)
        pub.publish(m)
        seq += 1
        rclpy.spin_once(node, timeout_sec=0.2)
    return 0


def samples():
    from builtin_interfaces.msg import Time
    from geometry_msgs.msg import PoseStamped
    from sensor_msgs.msg import JointState
    from std_msgs.msg import String, UInt8MultiArray

    pose = PoseStamped()
    pose.header.stamp = Time(sec=12, nanosec=345)
    pose.header.frame_id = "map"
    pose.pose.position.x, pose.pose.orientation.w = 1.5, 1.0
    js = JointState(name=["a", "bb", "ccc"], position=[0.5, -1.0, 2.0], velocity=[], effort=[3.0])
    js.header.frame_id = "j"
    return [
        ("std_msgs/msg/String", String(data="hello baton")),
        ("std_msgs/msg/String", String(data="")),
        ("std_msgs/msg/UInt8MultiArray", UInt8MultiArray(data=bytes(range(37)))),
        ("geometry_msgs/msg/PoseStamped", pose),
        ("sensor_msgs/msg/JointState", js),
    ]


def serialize():
    for name, msg in samples():
        print(name, serialize_message(msg).hex(), flush=True)
    return 0


def graph_target(node, deadline):
    from sensor_msgs.msg import Image
    from std_msgs.msg import String

    node.create_publisher(String, "/graph_pub", 7)
    node.create_subscription(Image, "/graph_sub", lambda m: None, 3)
    print("ready", flush=True)
    spin_until(node, deadline, lambda: False)
    return 0


def graph_query(node, deadline):
    print("ready", flush=True)

    def listed():
        return ("target", "/graph_ns") in node.get_node_names_and_namespaces()

    if not spin_until(node, deadline, listed):
        print("target not listed", node.get_node_names_and_namespaces(), flush=True)
        return 1
    # The endpoints are registered right after the node: wait for them too.
    spin_until(node, deadline, lambda: node.count_publishers("/graph_pub") > 0)
    info = node.get_publishers_info_by_topic("/graph_pub")
    out = {
        "nodes": sorted(f"{ns}|{n}" for n, ns in node.get_node_names_and_namespaces()),
        "topics": {t: types for t, types in node.get_topic_names_and_types()},
        "pub_count": node.count_publishers("/graph_pub"),
        "sub_count": node.count_subscribers("/graph_sub"),
        "pubs_by_node": dict(node.get_publisher_names_and_types_by_node("target", "/graph_ns")),
        "subs_by_node": dict(node.get_subscriber_names_and_types_by_node("target", "/graph_ns")),
        "services_by_node": sorted(
            s for s, _ in node.get_service_names_and_types_by_node("target", "/graph_ns")
        ),
        "pub_info": [
            {
                "node": i.node_name,
                "ns": i.node_namespace,
                "type": i.topic_type,
                "hash": str(i.topic_type_hash),
                "depth": i.qos_profile.depth,
                "reliability": int(i.qos_profile.reliability),
            }
            for i in info
        ],
    }
    print("graph", json.dumps(out, sort_keys=True), flush=True)
    return 0


def stamped_talk(node, deadline, topic):
    from std_msgs.msg import String

    pub = node.create_publisher(String, topic, 10)
    print("ready", flush=True)
    while time.monotonic() < deadline:
        pub.publish(String(data=str(time.time_ns())))
        rclpy.spin_once(node, timeout_sec=0.05)
    return 0


def info_listen(node, deadline, topic):
    from std_msgs.msg import String

    got = []
    node.create_subscription(String, topic, lambda m, info: got.append((m, info)), 10)
    print("ready", flush=True)
    if not spin_until(node, deadline, lambda: bool(got)):
        return 1
    msg, info = got[0]
    gid = info["publisher_gid"]
    gid = gid["data"] if isinstance(gid, dict) else gid
    print("gid", bytes(gid).hex(), flush=True)
    for i in node.get_publishers_info_by_topic(topic):
        print("info_gid", bytes(i.endpoint_gid).hex(), flush=True)
    print("source", info["source_timestamp"], flush=True)
    print("received", info["received_timestamp"], flush=True)
    print("sent", int(msg.data), flush=True)
    return 0


def watch(node, deadline, topic):
    from std_msgs.msg import String

    got = []
    node.create_subscription(String, topic, got.append, 10)
    print("ready", flush=True)
    spin_until(node, deadline, lambda: False)
    print("received", len(got), flush=True)
    nodes = sorted(f"{ns}|{n}" for n, ns in node.get_node_names_and_namespaces())
    print("nodes", json.dumps(nodes), flush=True)
    return 0


def param_server(node, deadline):
    node.declare_parameter("answer", 42)
    print("ready", flush=True)
    spin_until(node, deadline, lambda: False)
    return 0


def param_call(node, deadline):
    from rcl_interfaces.srv import GetParameters

    cli = node.create_client(GetParameters, "/param_node/get_parameters")
    print("ready", flush=True)
    if not cli.wait_for_service(timeout_sec=max(0.0, deadline - time.monotonic())):
        print("service not available", flush=True)
        return 1
    print("available", flush=True)
    future = cli.call_async(GetParameters.Request(names=["answer"]))
    rclpy.spin_until_future_complete(
        node, future, timeout_sec=max(0.0, deadline - time.monotonic())
    )
    if not future.done():
        print("no response", flush=True)
        return 1
    print("answer", future.result().values[0].integer_value, flush=True)
    return 0


def svc_server(node, deadline, service):
    from rcl_interfaces.msg import ParameterType, ParameterValue
    from rcl_interfaces.srv import GetParameters

    def serve(request, response):
        for name in request.names:
            print("served", name, flush=True)
            response.values.append(
                ParameterValue(type=ParameterType.PARAMETER_STRING, string_value="served:" + name)
            )
        return response

    node.create_service(GetParameters, service, serve)
    print("ready", flush=True)
    clients = [0]

    def report_clients():
        n = node.count_clients(service)
        if n != clients[0]:
            clients[0] = n
            print(f"clients {n}", flush=True)
        return False

    spin_until(node, deadline, report_clients)
    return 0


def svc_call(node, deadline, service, count):
    from rcl_interfaces.srv import GetParameters

    cli = node.create_client(GetParameters, service)
    print("ready", flush=True)
    if not cli.wait_for_service(timeout_sec=max(0.0, deadline - time.monotonic())):
        print("service not available", flush=True)
        return 1
    print("available", flush=True)
    # DDS discovery is not symmetric: this client matching the server says nothing of the server
    # matching this client, and a volatile request reaching a reader that has not matched its
    # writer yet is lost (true of every DDS RMW). The test knows when the server has: its line.
    sys.stdin.readline()
    futures = [
        (f"q{i}", cli.call_async(GetParameters.Request(names=[f"q{i}"]))) for i in range(count)
    ]
    spin_until(node, deadline, lambda: all(f.done() for _, f in futures))
    ok = 0
    for name, f in futures:
        if not f.done():
            print("no response", name, flush=True)
            continue
        values = [v.string_value for v in f.result().values]
        good = values == ["served:" + name]
        ok += good
        print("reply", name, "ok" if good else "WRONG " + repr(values), flush=True)
    print(f"summary replies={sum(f.done() for _, f in futures)} ok={ok}", flush=True)
    return 0 if ok == count else 1


def svc_graph(node, deadline, service):
    print("ready", flush=True)
    spin_until(node, deadline, lambda: service in dict(node.get_service_names_and_types()))
    # by_node raises until the node itself is listed (ros_discovery_info).
    listed = ("svc_server", "/svc_ns")
    spin_until(node, deadline, lambda: listed in node.get_node_names_and_namespaces())
    if listed not in node.get_node_names_and_namespaces():
        print("node not listed", node.get_node_names_and_namespaces(), flush=True)
        return 1
    spin_until(
        node,
        deadline,
        lambda: service in dict(node.get_service_names_and_types_by_node("svc_server", "/svc_ns")),
    )
    for name, types in node.get_service_names_and_types():
        print("service", name, ",".join(types), flush=True)
    for name, types in node.get_service_names_and_types_by_node("svc_server", "/svc_ns"):
        print("by_node", name, ",".join(types), flush=True)
    return 0


def main():
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "serialize":
        sys.exit(serialize())
    rclpy.init()
    names = {
        "graph_target": ("target", "/graph_ns"),
        "param_server": ("param_node", "/"),
        "svc_server": ("svc_server", "/svc_ns"),
    }
    name, ns = names.get(mode, (f"rmw_peer_{mode}", "/"))
    node = rclpy.create_node(name, namespace=ns)
    deadline = time.monotonic() + float(args[-1])
    if mode == "listen":
        code = listen(node, deadline, args[0], int(args[1]))
    elif mode == "talk":
        code = talk(node, deadline, args[0])
    elif mode == "image_listen":
        code = image_listen(node, deadline, args[0], int(args[1]))
    elif mode == "image_talk":
        code = image_talk(node, deadline, args[0])
    elif mode == "graph_target":
        code = graph_target(node, deadline)
    elif mode == "graph_query":
        code = graph_query(node, deadline)
    elif mode == "stamped_talk":
        code = stamped_talk(node, deadline, args[0])
    elif mode == "info_listen":
        code = info_listen(node, deadline, args[0])
    elif mode == "watch":
        code = watch(node, deadline, args[0])
    elif mode == "param_server":
        code = param_server(node, deadline)
    elif mode == "param_call":
        code = param_call(node, deadline)
    elif mode == "svc_server":
        code = svc_server(node, deadline, args[0])
    elif mode == "svc_call":
        code = svc_call(node, deadline, args[0], int(args[1]))
    elif mode == "svc_graph":
        code = svc_graph(node, deadline, args[0])
    else:
        print("unknown mode", mode, flush=True)
        code = 2
    node.destroy_node()
    rclpy.shutdown()
    sys.exit(code)


if __name__ == "__main__":
    main()
