"""One role of bench/suite's open-loop scenarios over a Python ROS client library.

    .venv-ros/bin/python bench/suite/py_stream.py --system rclpy --role receiver ...
    /usr/bin/python3     bench/suite/py_stream.py --system rospy --role sender ...

The protocol, options and log format are bench/stream/stream_roles.hpp's (read it first),
written again in Python: sender / receiver / relay / pinger, {u32 seq, u32 value} at the start of
every payload, HELLO / END markers, ready.* and done.* files in --sync, logs
<sync>/<name>.send|.recv|.stats. Messages are std_msgs/UInt8MultiArray on both systems.
Both use their system's delivery guarantee (what seed 003 configured), not a bounded queue:
  rclpy  ROS 2 (the .venv-ros wheels) on rmw_fastrtps_cpp: reliable, keep-all, volatile; the
         subscription callback runs inside executor.spin_once() in receive().
  rospy  ROS 1 (Debian) over TCPROS with tcp_nodelay; publisher queue_size=None (publish()
         writes synchronously), subscriber queue_size=None (unbounded); callbacks run on rospy's
         threads and hand over through a queue.
Times are time.monotonic_ns() (CLOCK_MONOTONIC, the clock of the C++ and Rust programs).
"""

from __future__ import annotations

import argparse
import array
import os
import queue
import struct
import sys
import time

HELLO = 0xFFFFFFFF
END = 0xFFFFFFFE
KEY = 0x5A5A5A5A
HEADER = struct.Struct("<II")


def now_ns() -> int:
    return time.monotonic_ns()


class Rclpy:
    def __init__(self, a):
        import rclpy
        from rclpy.executors import SingleThreadedExecutor
        from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
        from std_msgs.msg import UInt8MultiArray

        self.rclpy, self.Msg = rclpy, UInt8MultiArray
        rclpy.init()
        self.node = rclpy.create_node(f"baton_stream_{a.name}".replace(".", "_"))
        self.qos = QoSProfile(
            depth=a.depth,  # unused with KEEP_ALL
            reliability=ReliabilityPolicy.RELIABLE,
            history=HistoryPolicy.KEEP_ALL,
            durability=DurabilityPolicy.VOLATILE,
        )
        self.exec = SingleThreadedExecutor()
        self.exec.add_node(self.node)
        self.inbox: list = []
        self.msgs: dict[int, object] = {}

    def advertise(self, topic: str) -> None:
        self.pub = self.node.create_publisher(self.Msg, topic, self.qos)

    def subscribe(self, topic: str) -> None:
        self.sub = self.node.create_subscription(self.Msg, topic, self.inbox.append, self.qos)

    def send(self, seq: int, value: int, size: int) -> None:
        m = self.msgs.get(size)
        if m is None:  # one preallocated message per size, as the C++ programs keep buffers
            m = self.msgs[size] = self.Msg()
            m.data = array.array("B", bytes(size))
        m.data[0:8] = array.array("B", HEADER.pack(seq, value))
        self.pub.publish(m)

    def receive(self, timeout_ns: int):
        until = now_ns() + timeout_ns
        while not self.inbox:
            left = until - now_ns()
            if left <= 0:
                return None
            self.exec.spin_once(timeout_sec=left / 1e9)
        d = self.inbox.pop(0).data
        if len(d) < 8:
            raise SystemExit("error: rclpy: payload too short")
        seq, value = HEADER.unpack(bytes(d[0:8]))
        return seq, value, len(d)


class Rospy:
    def __init__(self, a):
        import rospy
        from std_msgs.msg import UInt8MultiArray

        self.rospy, self.Msg = rospy, UInt8MultiArray
        rospy.init_node(
            f"baton_stream_{a.name}".replace(".", "_"),
            anonymous=True,
            disable_signals=True,
            disable_rosout=True,
        )
        self.inbox: queue.SimpleQueue = queue.SimpleQueue()
        self.pads: dict[int, bytes] = {}

    def advertise(self, topic: str) -> None:
        self.pub = self.rospy.Publisher(topic, self.Msg, queue_size=None, tcp_nodelay=True)

    def subscribe(self, topic: str) -> None:
        self.sub = self.rospy.Subscriber(
            topic, self.Msg, self.inbox.put, queue_size=None, tcp_nodelay=True
        )

    def send(self, seq: int, value: int, size: int) -> None:
        pad = self.pads.get(size)
        if pad is None:
            pad = self.pads[size] = bytes(size - 8)
        self.pub.publish(self.Msg(data=HEADER.pack(seq, value) + pad))

    def receive(self, timeout_ns: int):
        try:
            m = self.inbox.get(timeout=max(timeout_ns, 0) / 1e9)
        except queue.Empty:
            return None
        d = m.data
        if len(d) < 8:
            raise SystemExit("error: rospy: payload too short")
        seq, value = HEADER.unpack(bytes(d[0:8]))
        return seq, value, len(d)


def source_value(seq: int) -> int:
    return seq ^ KEY


def relayed_value(seq: int, value: int) -> int:
    return (value + seq) & 0xFFFFFFFF


class Roles:
    def __init__(self, a, t):
        self.a, self.t = a, t
        self.total = a.per_size * len(a.sizes)
        self.deadline = now_ns() + int(a.timeout * 1e9)
        self.hello_back = False

    def size_of(self, seq: int) -> int:
        return self.a.sizes[seq // self.a.per_size]

    def count(self, prefix: str) -> int:
        return sum(1 for f in os.listdir(self.a.sync) if f.startswith(prefix))

    def touch(self, what: str) -> None:
        open(os.path.join(self.a.sync, f"{what}.{self.a.name}"), "w").close()

    def write_log(self, ext: str, log: list) -> None:
        with open(os.path.join(self.a.sync, f"{self.a.name}.{ext}"), "w") as fh:
            fh.write("".join(" ".join(str(x) for x in r) + "\n" for r in log))

    def check_deadline(self, what: str) -> None:
        if now_ns() > self.deadline:
            raise SystemExit(f"error: {self.a.role} {self.a.name}: timed out {what}")
        if os.getppid() == 1:
            os._exit(1)  # the coordinator is gone

    def hello_until(self, ready) -> None:
        while not ready():
            self.check_deadline("waiting for the subscribers (discovery / ready files)")
            self.t.send(HELLO, 0, self.a.sizes[0])
            until = now_ns() + 10_000_000
            if not self.a.inp:
                time.sleep(0.01)
                continue
            while now_ns() < until:
                m = self.t.receive(until - now_ns())
                if m and m[0] == HELLO:
                    self.hello_back = True

    def tick(self, t0: int, i: int) -> int:
        return t0 + int(i * 1e9 / self.a.rate)

    def sender(self) -> int:
        a = self.a
        self.t.advertise(a.out)
        self.hello_until(lambda: self.count("ready.") >= a.wait_ready)
        log = []
        t0 = now_ns()
        for i in range(self.total):
            if a.rate > 0:
                wait = self.tick(t0, i) - now_ns()
                if wait > 0:
                    time.sleep(wait / 1e9)
            size = self.size_of(i)
            log.append((i, now_ns()))
            self.t.send(i, source_value(i), size)
        while self.count("done.") < a.wait_done:
            self.check_deadline("waiting for the receivers to finish")
            self.t.send(END, 0, a.sizes[0])
            time.sleep(0.02)
        self.write_log("send", log)
        return 0

    def receiver(self) -> int:
        a = self.a
        self.t.subscribe(a.inp)
        log, ready, corrupt = [], False, 0
        while True:
            m = self.t.receive(200_000_000)
            if m is None:
                self.check_deadline("waiting for messages")
                continue
            t = now_ns()
            seq, value, size = m
            if seq == HELLO:
                if not ready:
                    self.touch("ready")
                ready = True
                continue
            if seq == END:
                break
            expect = source_value(seq)
            for _ in range(a.relays):
                expect = relayed_value(seq, expect)
            if seq >= self.total or value != expect or size != self.size_of(seq):
                corrupt += 1
                continue
            log.append((seq, t, size))
        self.write_log("recv", log)
        self.touch("done")
        if corrupt:
            print(f"warning: {a.name}: {corrupt} corrupt messages", file=sys.stderr)
        return 2 if corrupt else 0

    def relay(self) -> int:
        self.t.subscribe(self.a.inp)
        self.t.advertise(self.a.out)
        while True:
            m = self.t.receive(200_000_000)
            if m is None:
                self.check_deadline("relaying")
                continue
            seq, value, size = m
            self.t.send(seq, value if seq >= END else relayed_value(seq, value), size)

    def pinger(self) -> int:
        a = self.a
        self.t.advertise(a.out)
        self.t.subscribe(a.inp)
        self.hello_until(lambda: self.hello_back)
        self.touch("ready")
        while self.count("ready.") < a.wait_ready:
            self.check_deadline("waiting for the other pairs")
            time.sleep(0.001)
        sends, answers = [], []
        st = {"skipped": 0, "corrupt": 0, "last": -1}

        def take(timeout: int) -> None:
            while (m := self.t.receive(timeout)) is not None:
                t = now_ns()
                timeout = 0
                seq, value, size = m
                if seq >= END:
                    continue
                if (
                    seq >= self.total
                    or value != relayed_value(seq, source_value(seq))
                    or size != self.size_of(seq)
                ):
                    st["corrupt"] += 1
                    continue
                answers.append((seq, t, size))
                st["last"] = max(st["last"], seq)

        t0, nxt, tick = now_ns(), 0, 0
        while nxt < self.total:
            due = self.tick(t0, tick) if a.rate > 0 else 0
            tick += 1
            while (now := now_ns()) < due:
                take(due - now)
            take(0)
            self.check_deadline("pinging")
            # The paper: no message while (last sent - last received) > watermark.
            over = a.watermark > 0 and nxt - 1 - st["last"] > a.watermark
            if over and a.rate > 0:
                st["skipped"] += 1
                continue
            if over:
                take(100_000_000)
                continue
            size = self.size_of(nxt)
            sends.append((nxt, now_ns()))
            self.t.send(nxt, source_value(nxt), size)
            nxt += 1
        quiet = now_ns()
        while len(answers) < len(sends) and now_ns() - quiet < 2_000_000_000:
            before = len(answers)
            take(100_000_000)
            if len(answers) != before:
                quiet = now_ns()
        self.write_log("send", sends)
        self.write_log("recv", answers)
        with open(os.path.join(a.sync, f"{a.name}.stats"), "w") as fh:
            fh.write(f"skipped {st['skipped']}\ncorrupt {st['corrupt']}\n")
        self.touch("done")
        return 2 if st["corrupt"] else 0


def parse_size(s: str) -> int:
    mult = {"K": 1024, "M": 1024 * 1024}.get(s[-1:], 1)
    return int(s[:-1] if mult != 1 else s) * mult


def parse_args(argv: list[str] | None = None, doc: str | None = None) -> argparse.Namespace:
    """The stream protocol's options (stream_roles.hpp's), checked; also used by
    bench/seed004/rospy_chain.py."""
    ap = argparse.ArgumentParser(
        description=doc or __doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    ap.add_argument("--system", choices=("rclpy", "rospy"), required=True)
    ap.add_argument("--role", choices=("sender", "receiver", "relay", "pinger"), required=True)
    ap.add_argument("--out", default="")
    ap.add_argument("--in", dest="inp", default="")
    ap.add_argument("--sizes", default="64")
    ap.add_argument("--per-size", type=int, default=100)
    ap.add_argument("--rate", type=float, default=0.0)
    ap.add_argument("--watermark", type=int, default=0)
    ap.add_argument("--depth", type=int, default=64)
    ap.add_argument("--relays", type=int, default=0)
    ap.add_argument("--subscribers", type=int, default=1)
    ap.add_argument("--mode", choices=("blocking", "busy-poll"), default="blocking")
    ap.add_argument("--sync", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--wait-ready", type=int, default=1)
    ap.add_argument("--wait-done", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--cpu", type=int, default=-1)
    ap.add_argument("--domain", default="")
    a = ap.parse_args(argv)
    a.sizes = [parse_size(s) for s in a.sizes.split(",") if s]
    if not a.sizes or min(a.sizes) < 8 or a.per_size <= 0 or a.depth <= 0:
        ap.error("sizes must be >= 8 bytes, --per-size and --depth > 0")
    if a.cpu >= 0:
        os.sched_setaffinity(0, {a.cpu})
    return a


def main() -> int:
    a = parse_args()
    t = (Rclpy if a.system == "rclpy" else Rospy)(a)
    return getattr(Roles(a, t), a.role)()


if __name__ == "__main__":
    sys.exit(main())
