"""Creates a publisher (and so segments), says "ready", then is killed by the test."""

import time

import numpy as np

import baton

node = baton.Node("doomed")
pub = node.publisher("/doomed", np.uint8, (1024,)).create()
pub.publish(np.zeros(1024, np.uint8))
print("ready", flush=True)
time.sleep(60)
