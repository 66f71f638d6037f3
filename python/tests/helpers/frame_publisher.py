"""Publishes one 24 MiB frame (1024 x 4096 x 6 uint8, pattern (index * 7 + 3) mod 251) through a
loan once a subscriber is there, then waits for stdin to close.
Prints "ready", then "published <sequence-free marker>"."""

import sys
import time

import numpy as np

import baton

SHAPE = (1024, 4096, 6)
node = baton.Node("frame_publisher")
pub = node.publisher("/camera/frame", np.uint8, SHAPE).qos(baton.QoS(2)).create()
print("ready", flush=True)
deadline = time.monotonic() + 10
while pub.subscription_count == 0 and time.monotonic() < deadline:
    time.sleep(0.005)
loan = pub.loan()
a = loan.array
flat = a.reshape(-1)
flat[:] = (np.arange(flat.size, dtype=np.uint64) * 7 + 3) % 251  # written in place
pub.publish(loan)
print("published", flush=True)
sys.stdin.read()
