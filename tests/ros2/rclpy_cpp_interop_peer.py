"""rclpy peer of tests/ros2/rmw_baton_rcl_cpp_test.cpp: the rclpy side of C++ <-> rclpy on one
topic. Its messages equal the C++ peer's (tests/ros2/cpp_message_samples.hpp), so each side
compares what it takes whole with the sample it expects.

  talk KIND TOPIC COUNT TIMEOUT_S    wait for a subscription, publish samples 0..COUNT-1, then
                                     wait until the subscription has left
  listen KIND TOPIC COUNT TIMEOUT_S  print "got <i> equal|DIFFERENT" per message, then
                                     "summary distinct=<n> duplicates=<d> different=<k>"; exit 0
                                     when all COUNT came once, equal

KIND: string (std_msgs/String "C++ message <i>"), event (rcl_interfaces/ParameterEvent with
bool[], byte[], int64[], float64[], string[] values). Reliable, keep last max(COUNT, 10).
Prints "ready" once its endpoint exists.
"""

import sys
import time

import rclpy
from rclpy.qos import QoSProfile, ReliabilityPolicy

from peer_lifetime import die_with_parent

die_with_parent()


def string_msg(i):
    from std_msgs.msg import String

    return String(data=f"C++ message {i}")


def parameter_event(i):
    """samples::parameter_event(i) of cpp_message_samples.hpp."""
    from rcl_interfaces.msg import Parameter, ParameterEvent, ParameterType

    ev = ParameterEvent(node="/cpp_ns/talker")
    ev.stamp.sec, ev.stamp.nanosec = i, 123456789
    flags = Parameter(name="flags")
    flags.value.type = ParameterType.PARAMETER_BOOL_ARRAY
    flags.value.bool_array_value = [True, False, True, True, False, i % 2 == 0, True]
    mixed = Parameter(name="mixed")
    v = mixed.value
    v.bool_value, v.integer_value, v.double_value, v.string_value = True, -42 - i, 2.5, "text"
    v.byte_array_value = [bytes([b]) for b in (0x00, 0xFF, 0x10, i % 256)]
    v.integer_array_value = [1, -2, 3000000000]
    v.double_array_value = [0.25, -8.0]
    v.string_array_value = ["a", "", "ccc"]
    ev.new_parameters = [flags, mixed]
    changed = Parameter(name="changed")
    changed.value.bool_array_value = [False]
    ev.changed_parameters = [changed]
    return ev


KINDS = {
    "string": (string_msg, lambda m: int(m.data.rsplit(" ", 1)[-1])),
    "event": (parameter_event, lambda m: m.stamp.sec),
}


def qos(count):
    return QoSProfile(depth=max(count, 10), reliability=ReliabilityPolicy.RELIABLE)


def talk(node, deadline, make, topic, count):
    pub = node.create_publisher(type(make(0)), topic, qos(count))
    print("ready", flush=True)
    while pub.get_subscription_count() == 0 and time.monotonic() < deadline:
        rclpy.spin_once(node, timeout_sec=0.01)
    for i in range(count):
        pub.publish(make(i))
    print("sent", count, flush=True)
    while pub.get_subscription_count() > 0 and time.monotonic() < deadline:
        rclpy.spin_once(node, timeout_sec=0.02)
    return 0


def listen(node, deadline, make, index_of, topic, count):
    got = []
    node.create_subscription(type(make(0)), topic, got.append, qos(count))
    print("ready", flush=True)
    seen, different = {}, 0
    until = deadline
    while time.monotonic() < until:
        rclpy.spin_once(node, timeout_sec=0.05)
        while got:
            m = got.pop(0)
            i = index_of(m)
            equal = 0 <= i < count and m == make(i)
            different += 0 if equal else 1
            seen[i] = seen.get(i, 0) + 1
            print("got", i, "equal" if equal else "DIFFERENT", flush=True)
        if len(seen) >= count and until == deadline:
            until = min(deadline, time.monotonic() + 0.5)  # a late duplicate still counts
    duplicates = sum(k - 1 for k in seen.values())
    print(f"summary distinct={len(seen)} duplicates={duplicates} different={different}", flush=True)
    return 0 if len(seen) == count and duplicates == 0 and different == 0 else 1


def main():
    mode, kind, topic, count, timeout_s = sys.argv[1:6]
    make, index_of = KINDS[kind]
    rclpy.init()
    node = rclpy.create_node(f"rclpy_cpp_interop_{mode}")
    deadline = time.monotonic() + float(timeout_s)
    if mode == "talk":
        code = talk(node, deadline, make, topic, int(count))
    else:
        code = listen(node, deadline, make, index_of, topic, int(count))
    node.destroy_node()
    rclpy.try_shutdown()
    sys.exit(code)


if __name__ == "__main__":
    main()
