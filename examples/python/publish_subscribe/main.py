"""publish_subscribe: numpy frames between two processes, received in a callback.

    python main.py listener [N]   # prints each frame it receives; exits after N (default 10)
    python main.py talker [N]     # publishes N 480x640 uint8 frames at 20 Hz (default 10)

Run both in two terminals (same user and BATON_NAMESPACE); start the listener first.
"""

import sys
import time

import numpy as np

import baton

SHAPE = (480, 640)


def talker(count: int) -> int:
    node = baton.Node("talker")
    pub = node.publisher("frames", np.uint8, SHAPE).qos(baton.QoS(10)).create()
    deadline = time.monotonic() + 10
    while pub.subscription_count == 0 and time.monotonic() < deadline:
        time.sleep(0.01)  # wait for a listener, so no frame goes unseen
    for i in range(count):
        frame = np.full(SHAPE, i % 256, dtype=np.uint8)
        pub.publish(frame)  # one copy into shared memory (see zero_copy_loan for none)
        print(f"published frame {i}", flush=True)
        time.sleep(0.05)
    # Messages not yet taken leave with their publisher: stay until the subscriber has gone.
    deadline = time.monotonic() + 10
    while pub.subscription_count and time.monotonic() < deadline:
        time.sleep(0.01)
    return 0


def listener(count: int) -> int:
    node = baton.Node("listener")
    received = []

    def on_frame(sample: baton.Sample) -> None:
        a = sample.array  # a read-only numpy view of the publisher's bytes
        print(f"frame {len(received)}: shape {a.shape} dtype {a.dtype} mean {a.mean():.1f}")
        received.append(int(a[0, 0]))

    node.subscription("frames", np.uint8).qos(baton.QoS(10)).callback(on_frame).create()
    executor = baton.SingleThreadedExecutor(node.context)
    executor.add_node(node)
    print("ready", flush=True)
    while len(received) < count:
        executor.spin_once(timeout_sec=0.5)
    return 0 if received == [i % 256 for i in range(count)] else 1


if __name__ == "__main__":
    role = sys.argv[1] if len(sys.argv) > 1 else ""
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    if role not in ("talker", "listener"):
        sys.exit(__doc__)
    sys.exit(talker(n) if role == "talker" else listener(n))
