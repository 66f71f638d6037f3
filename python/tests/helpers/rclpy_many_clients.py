"""rclpy on rmw_baton_cpp (LD_PRELOAD + RMW_IMPLEMENTATION): one node serves /many/get
(rcl_interfaces GetParameters, answering each name n with "served:n") and holds COUNT clients of
it, each of which sends one request with its own name at once; spins until every future is done.

  rclpy_many_clients.py COUNT TIMEOUT_S

Prints "answered <k> of <COUNT>" (k: answers that carry the name their own client sent), then
tries one client more and prints "extra ok" if it could be created or "extra refused: <error>".
Exit 0 when k == COUNT, 1 otherwise.
"""

import sys
import time
from pathlib import Path

import rclpy
from rcl_interfaces.msg import ParameterType, ParameterValue
from rcl_interfaces.srv import GetParameters

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests" / "ros2"))
from peer_lifetime import die_with_parent  # noqa: E402

die_with_parent()

SERVICE = "/many/get"


def main() -> int:
    count, timeout = int(sys.argv[1]), float(sys.argv[2])
    deadline = time.monotonic() + timeout
    rclpy.init()
    node = rclpy.create_node("many_clients", start_parameter_services=False)

    def serve(request, response):
        for name in request.names:
            response.values.append(
                ParameterValue(type=ParameterType.PARAMETER_STRING, string_value="served:" + name)
            )
        return response

    node.create_service(GetParameters, SERVICE, serve)
    clients = [node.create_client(GetParameters, SERVICE) for _ in range(count)]
    print("ready", flush=True)
    futures = [
        (f"c{i}", cli.call_async(GetParameters.Request(names=[f"c{i}"])))
        for i, cli in enumerate(clients)
    ]
    while time.monotonic() < deadline and not all(f.done() for _, f in futures):
        rclpy.spin_once(node, timeout_sec=0.05)
    answered = sum(
        1
        for name, f in futures
        if f.done() and [v.string_value for v in f.result().values] == ["served:" + name]
    )
    print(f"answered {answered} of {count}", flush=True)
    try:
        node.create_client(GetParameters, SERVICE)
        print("extra ok", flush=True)
    except Exception as e:  # rclpy raises its RCLError subclass with rmw's text
        print("extra refused:", str(e).replace("\n", " "), flush=True)
    return 0 if answered == count else 1


if __name__ == "__main__":
    sys.exit(main())
