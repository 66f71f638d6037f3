"""A second process publishing on a topic until its stdin closes.

    talker.py TOPIC KIND RATE_HZ [SHAPE]     KIND: uint8 | float32 | text
Prints "ready" once the publisher exists.
"""

import sys
import threading

import numpy as np

import baton

topic, kind, rate = sys.argv[1], sys.argv[2], float(sys.argv[3])
shape = tuple(int(x) for x in sys.argv[4].split(",")) if len(sys.argv) > 4 else (4,)
node = baton.Node("talker")
if kind == "text":
    pub = node.raw_publisher(topic, "std_msgs/msg/String").create()
else:
    pub = node.publisher(topic, np.dtype(kind), shape).create()
stop = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
print("ready", flush=True)
i = 0
while not stop.is_set():
    if kind == "text":
        pub.publish(f"hello {i}")
    else:
        with pub.loan() as a:
            a[...] = i % 100
    i += 1
    stop.wait(1.0 / rate)
