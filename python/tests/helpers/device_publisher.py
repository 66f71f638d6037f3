"""Publishes frames through loans in a memory domain (argv[1], e.g. "opencl:0"; argv[2] frames,
default 1) once a subscriber is there, then waits for stdin to close. Frame i is 512 x 1024 x 4
uint8 with the pattern (index * 7 + 3 + i) mod 251, written in place through DLPack when the loan
is host-visible, else with loan.write() (one explicit copy). Prints "ready", then for each frame
"published <json>" with what the loan looked like from this side."""

import json
import sys
import time

import numpy as np

import baton

SHAPE = (512, 1024, 4)
domain = sys.argv[1]
frames = int(sys.argv[2]) if len(sys.argv) > 2 else 1
node = baton.Node("device_publisher")
pub = node.domain_publisher("/camera/device", np.uint8, domain, SHAPE).qos(baton.QoS(2)).create()
print("ready", flush=True)
deadline = time.monotonic() + 10
while pub.subscription_count == 0 and time.monotonic() < deadline:
    time.sleep(0.005)
base = np.arange(np.prod(SHAPE), dtype=np.uint64) * 7 + 3
for i in range(frames):
    loan = pub.loan()
    pattern = ((base + i) % 251).astype(np.uint8)
    facts = {"dlpack_device": list(loan.__dlpack_device__()), "host_visible": loan.host_visible}
    if loan.host_visible:
        view = np.from_dlpack(loan)  # the loan itself: written in place, no copy
        facts["dlpack_is_loan"] = view.ctypes.data == loan.data_ptr
        view.reshape(-1)[:] = pattern
    else:
        loan.write(pattern)
    pub.publish(loan)
    print("published " + json.dumps(facts), flush=True)
sys.stdin.read()
