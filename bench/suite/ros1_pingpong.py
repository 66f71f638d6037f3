"""ROS 1 (rospy, TCPROS with tcp_nodelay) ping-pong for bench/suite; run with /usr/bin/python3.

    /usr/bin/python3 bench/suite/ros1_pingpong.py --size 10 --samples 2000

Starts its own rosmaster on a free port (ROS_MASTER_URI), an echo process (this script with
--role echo) and times round trips of std_msgs/UInt8MultiArray messages of --size bytes on
/baton_ping -> /baton_pong. One-way = RTT / 2 in µs; samples (after 10 % warm-up) go to
$BATON_BENCH_RAW_DIR/ros1-rospy_blocking_<size>.csv and a summary line to stdout.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import struct
import subprocess
import sys
import threading
import time


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def make(size: int, seq: int):
    from std_msgs.msg import UInt8MultiArray

    m = UInt8MultiArray()
    m.data = struct.pack("<Q", seq) + bytes(max(0, size - 8))
    return m


def seq_of(m) -> int:
    return struct.unpack("<Q", bytes(m.data[:8]))[0]


def echo(args) -> int:
    import rospy
    from std_msgs.msg import UInt8MultiArray

    rospy.init_node("baton_echo", anonymous=True, disable_signals=True)
    pub = rospy.Publisher("/baton_pong", UInt8MultiArray, queue_size=10, tcp_nodelay=True)
    done = threading.Event()

    def cb(m):
        pub.publish(m)
        if seq_of(m) == 2**64 - 1:
            done.set()

    rospy.Subscriber("/baton_ping", UInt8MultiArray, cb, tcp_nodelay=True)
    while not done.wait(0.5):
        if os.getppid() == 1:
            return 1
    time.sleep(0.2)
    return 0


def ping(args) -> int:
    import rospy
    from std_msgs.msg import UInt8MultiArray

    rospy.init_node("baton_ping", anonymous=True, disable_signals=True)
    pub = rospy.Publisher("/baton_ping", UInt8MultiArray, queue_size=10, tcp_nodelay=True)
    cond = threading.Condition()
    last = [None]

    def cb(m):
        with cond:
            last[0] = seq_of(m)
            cond.notify()

    rospy.Subscriber("/baton_pong", UInt8MultiArray, cb, tcp_nodelay=True)
    child = subprocess.Popen([sys.executable, __file__, "--role", "echo"], env=os.environ.copy())
    try:
        deadline = time.time() + 30
        hello = 2**63
        while True:  # discovery: until a hello comes back
            if time.time() > deadline:
                raise RuntimeError("echo side never answered (ROS 1 discovery failed)")
            pub.publish(make(args.size, hello))
            with cond:
                cond.wait(0.1)
                if last[0] == hello:
                    break
        time.sleep(0.2)
        n = args.samples
        warm = max(n // 10, 1)
        out = []
        for i in range(1, n + warm + 1):
            m = make(args.size, i)
            with cond:
                start = time.perf_counter_ns()
                pub.publish(m)
                while last[0] != i:
                    if not cond.wait(10.0):
                        raise RuntimeError(f"round trip {i} timed out")
                end = time.perf_counter_ns()
            if i > warm:
                out.append((end - start) / 2000.0)
        pub.publish(make(args.size, 2**64 - 1))
    finally:
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
    raw = os.environ.get("BATON_BENCH_RAW_DIR", "")
    if raw:
        with open(os.path.join(raw, f"ros1-rospy_blocking_{args.size}.csv"), "w") as fh:
            fh.write("".join(f"{v:.4f}\n" for v in out))
    print(
        f"ros1-rospy blocking size {args.size} samples {len(out)} "
        f"median {statistics.median(out):.2f} us max {max(out):.2f} us"
    )
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--size", type=int, default=10)
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--role", default="ping", choices=("ping", "echo"))
    args = ap.parse_args()
    if args.role == "echo":
        return echo(args)
    port = free_port()
    os.environ["ROS_MASTER_URI"] = f"http://127.0.0.1:{port}"
    os.environ["ROS_IP"] = "127.0.0.1"
    os.environ.setdefault("ROS_HOME", f"/tmp/baton-ros1-{os.getpid()}")
    master = subprocess.Popen(
        ["rosmaster", "--core", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.time() + 15
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.time() > deadline or master.poll() is not None:
                    print("error: rosmaster did not start", file=sys.stderr)
                    return 1
                time.sleep(0.1)
        return ping(args)
    finally:
        master.terminate()
        try:
            master.wait(timeout=5)
        except subprocess.TimeoutExpired:
            master.kill()


if __name__ == "__main__":
    sys.exit(main())
