"""rclpy peer for tests/ros2/rmw_baton_rclpy_stop_test.cpp: an ordinary rclpy node that spins
until it is asked to stop (issue 22 item 4).

  service [--sigint-ignored]       node with one rcl_interfaces/GetParameters service
  subscription [--sigint-ignored]  node with one std_msgs/String subscription and nothing else

--sigint-ignored runs it as a shell runs a background job: SIGINT ignored when rclpy installs
its handler, so a SIGINT raises no KeyboardInterrupt and only rclpy's signal thread
(guard conditions, then context shutdown) can end the spin, exactly as for SIGTERM.
Prints "ready" from inside rclpy.spin (the executor's first task, so the next thing it does is
wait), then "stopped <how>" when spin returns; destroys the node, shuts down and exits 0.
"""

import signal
import sys

import rclpy
from rclpy.executors import ExternalShutdownException
from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy
from rclpy.node import Node

from peer_lifetime import die_with_parent

die_with_parent()


def main(mode, sigint_ignored):
    if sigint_ignored:  # before rclpy.init installs rclpy's handler over it
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    rclpy.init()
    node = Node("stop_peer")
    if mode == "service":
        from rcl_interfaces.srv import GetParameters

        node.create_service(GetParameters, "stop_peer_service", lambda request, response: response)
    else:
        from std_msgs.msg import String

        node.create_subscription(String, "stop_peer_topic", lambda msg: None, 10)
    rclpy.get_global_executor().create_task(lambda: print("ready", flush=True))  # spin's executor
    try:
        rclpy.spin(node)
        how = "spin returned"
    except KeyboardInterrupt:
        how = "KeyboardInterrupt"
    except ExternalShutdownException:
        how = "ExternalShutdownException"
    except _rclpy.RCLError:
        # rclpy's own race: woken by its signal guard condition before its signal thread shut the
        # context down, the executor makes its next wait set just as the shutdown lands
        # (Fast DDS too). The node did stop; anything else is a real error.
        if node.context.ok():
            raise
        how = "RCLError after shutdown"
    print("stopped", how, flush=True)
    node.destroy_node()
    rclpy.try_shutdown()


if __name__ == "__main__":
    main(sys.argv[1], "--sigint-ignored" in sys.argv[2:])
