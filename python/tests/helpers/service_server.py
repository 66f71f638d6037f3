"""A byte service in a second process: /add answers JSON {"sum": a + b} to JSON {"a","b"};
/upper answers the request upper-cased. Spins until stdin closes. Prints "ready"."""

import json
import sys
import threading

import baton

node = baton.Node("server")
node.service("/add", "example_interfaces/srv/AddTwoInts").callback(
    lambda req: json.dumps({"sum": json.loads(req)["a"] + json.loads(req)["b"]})
).create()
node.service("/upper").callback(lambda req: req.upper()).create()
ex = baton.SingleThreadedExecutor(node.context)
ex.add_node(node)
threading.Thread(target=lambda: (sys.stdin.read(), ex.cancel()), daemon=True).start()
print("ready", flush=True)
ex.spin()
