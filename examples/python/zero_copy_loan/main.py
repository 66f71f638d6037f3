"""zero_copy_loan: a 24 MiB frame written in place in shared memory and read where it lies.

    python main.py viewer [N]   # takes N frames (default 3), checks each without copying it
    python main.py camera [N]   # loans, fills and publishes N 2048x4096x3 uint8 frames

Run both in two terminals (same user and BATON_NAMESPACE); start the viewer first.
"""

import sys
import time

import numpy as np

import baton

SHAPE = (2048, 4096, 3)  # 24 MiB


def camera(count: int) -> int:
    node = baton.Node("camera")
    pub = node.publisher("image", np.uint8, SHAPE).qos(baton.QoS(2)).create()
    deadline = time.monotonic() + 10
    while pub.subscription_count == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    for i in range(count):
        with pub.loan() as frame:  # a writable numpy view of a shared-memory chunk
            frame[:] = 100 + i  # written in place; published when the block ends
        print(f"published frame {i}", flush=True)
        time.sleep(0.1)
    # Messages not yet taken leave with their publisher: stay until the subscriber has gone.
    deadline = time.monotonic() + 10
    while pub.subscription_count and time.monotonic() < deadline:
        time.sleep(0.01)
    return 0


def viewer(count: int) -> int:
    node = baton.Node("viewer")
    sub = node.subscription("image", np.uint8).qos(baton.QoS(2)).create()
    print("ready", flush=True)
    ok = True
    for i in range(count):
        sample = sub.take(timeout=10.0)
        if sample is None:
            print("no frame within 10 s")
            return 1
        with sample:  # the chunk goes back to the camera at the end of the block
            view = np.from_dlpack(sample)  # DLPack: also no copy
            no_copy = view.ctypes.data == sample.data_ptr == sample.array.ctypes.data
            right = bool((view == 100 + i).all())
            ok = ok and no_copy and right
            print(
                f"frame {i}: {sample.nbytes >> 20} MiB {tuple(sample.shape)} at "
                f"{sample.data_ptr:#x}, no copy: {no_copy}, bytes right: {right}"
            )
    return 0 if ok else 1


if __name__ == "__main__":
    role = sys.argv[1] if len(sys.argv) > 1 else ""
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    if role not in ("camera", "viewer"):
        sys.exit(__doc__)
    sys.exit(camera(n) if role == "camera" else viewer(n))
