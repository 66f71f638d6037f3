"""request_response: a service in one process, a client calling it synchronously and
asynchronously from another. Requests and responses are bytes; here they carry JSON.

    python main.py server       # answers requests until Ctrl-C
    python main.py client       # 2 + 3 (blocking call), 40 + 2 (future, spun by an executor)

Run both in two terminals (same user and BATON_NAMESPACE).
"""

import json
import sys

import baton

SRV = "example_interfaces/srv/AddTwoInts"


def server() -> int:
    node = baton.Node("adder")

    def add(request: bytes) -> bytes:
        q = json.loads(request)
        print(f"request {q} -> {q['a'] + q['b']}", flush=True)
        return json.dumps({"sum": q["a"] + q["b"]}).encode()

    node.service("add_two_ints", SRV).callback(add).create()
    executor = baton.SingleThreadedExecutor(node.context)
    executor.add_node(node)
    print("ready", flush=True)
    try:
        executor.spin()  # until Ctrl-C; a response not yet taken would leave with the server
    except KeyboardInterrupt:
        pass
    return 0


def client() -> int:
    node = baton.Node("caller")
    cli = node.client("add_two_ints", SRV).create()
    if not cli.wait_for_service(10.0):
        print("no service 'add_two_ints': start `main.py server` first")
        return 3
    answer = json.loads(cli.call(json.dumps({"a": 2, "b": 3}), timeout=5.0))
    print(f"2 + 3 = {answer['sum']}")
    future = cli.call_async(json.dumps({"a": 40, "b": 2}))
    executor = baton.SingleThreadedExecutor(node.context)
    executor.add_node(node)  # the executor delivers the response to the future
    if not executor.spin_until_future_complete(future, timeout_sec=5.0):
        print("no answer within 5 s")
        return 1
    print(f"40 + 2 = {json.loads(future.result())['sum']}")
    return 0


if __name__ == "__main__":
    role = sys.argv[1] if len(sys.argv) > 1 else ""
    if role not in ("server", "client"):
        sys.exit(__doc__)
    sys.exit(server() if role == "server" else client())
