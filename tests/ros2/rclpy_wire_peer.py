"""rclpy peer (rmw_fastrtps_cpp) for tests/ros2/wire_rclpy_test.cpp.

  rclpy_wire_peer.py listen TOPIC COUNT TIMEOUT_S  print each std_msgs/String received on TOPIC,
                                                  exit 0 after COUNT of them, 1 on timeout
  rclpy_wire_peer.py talk TOPIC TIMEOUT_S         publish "from rclpy <n>" every 100 ms until
                                                  TIMEOUT_S (the test kills it sooner)
The test sets ROS_DOMAIN_ID and ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST.
"""

import sys
import time

import rclpy
from std_msgs.msg import String

from peer_lifetime import die_with_parent

die_with_parent()


def main():
    mode, topic = sys.argv[1], sys.argv[2]
    rclpy.init()
    node = rclpy.create_node("baton_wire_peer")
    deadline = time.monotonic() + float(sys.argv[-1])
    code = 1
    if mode == "listen":
        want = int(sys.argv[3])
        got = []
        node.create_subscription(String, topic, lambda m: got.append(m.data), 10)
        print("ready", flush=True)
        seen = 0
        while time.monotonic() < deadline and seen < want:
            rclpy.spin_once(node, timeout_sec=0.1)
            while got:
                print(got.pop(0), flush=True)
                seen += 1
        code = 0 if seen >= want else 1
    else:
        pub = node.create_publisher(String, topic, 10)
        n = 0
        while time.monotonic() < deadline:
            pub.publish(String(data=f"from rclpy {n}"))
            n += 1
            time.sleep(0.1)
        code = 0
    node.destroy_node()
    rclpy.shutdown()
    sys.exit(code)


if __name__ == "__main__":
    main()
