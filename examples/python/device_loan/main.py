"""device_loan: a message written and read in a device memory domain, handed to numpy (or torch,
CuPy, ...) through DLPack without a copy where the memory allows it.

    python main.py subscriber [--domain D] [N]   # takes N frames (default 3) in domain D
    python main.py publisher  [--domain D] [N]   # loans N frames in domain D and publishes them

D is opencl:0 (default; PoCL's CPU device here), opencl:0:sc (a real device copy), staging,
host or cuda:0. Start the subscriber first, in another terminal (same BATON_NAMESPACE).
"""

import argparse
import sys
import time

import numpy as np

import baton

SHAPE = (256, 256)


def describe(x) -> str:
    kind = {1: "kDLCPU", 2: "kDLCUDA", 4: "kDLOpenCL"}[x.__dlpack_device__()[0]]
    cl = f", cl_mem {x.cl_mem:#x}" if x.cl_mem else ""
    return f"{x.domain}: DLPack {kind}, host-visible {x.host_visible}{cl}"


def publisher(domain: str, count: int) -> int:
    node = baton.Node("device_publisher")
    pub = node.domain_publisher("tensor", np.float32, domain, SHAPE).qos(baton.QoS(4)).create()
    deadline = time.monotonic() + 10
    while pub.subscription_count == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    for i in range(count):
        with pub.loan() as loan:  # published at the end of the block
            value = np.full(SHAPE, float(i), np.float32)
            if loan.host_visible:
                np.from_dlpack(loan)[:] = value  # in place: the loan is the device memory
            else:
                loan.write(value)  # device memory the CPU cannot address: one explicit copy
            print(f"published {i} ({describe(loan)})", flush=True)
        time.sleep(0.05)
    # Messages not yet taken leave with their publisher: stay until the subscriber has gone.
    deadline = time.monotonic() + 10
    while pub.subscription_count and time.monotonic() < deadline:
        time.sleep(0.01)
    return 0


def subscriber(domain: str, count: int) -> int:
    node = baton.Node("device_subscriber")
    sub = node.domain_subscription("tensor", np.float32, domain).qos(baton.QoS(4)).create()
    print("ready", flush=True)
    ok = True
    for i in range(count):
        s = sub.take(timeout=10.0)
        if s is None:
            print("no message within 10 s")
            return 1
        with s:
            values = np.from_dlpack(s) if s.host_visible else s.read()
            right = bool((values == float(i)).all())
            ok = ok and right
            print(f"took {i} ({s.path}; {describe(s)}), values right: {right}")
    return 0 if ok else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("role", choices=("publisher", "subscriber"))
    parser.add_argument("count", nargs="?", type=int, default=3)
    parser.add_argument("--domain", default="opencl:0")
    args = parser.parse_intermixed_args()
    try:
        baton.domain_info(args.domain)
    except baton.DomainUnavailableError as e:
        sys.exit(f"error: {e.detail}\nhint: {e.hint}")
    run = publisher if args.role == "publisher" else subscriber
    sys.exit(run(args.domain, args.count))
