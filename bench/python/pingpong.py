"""Python ping-pong one-way latency of one system (baton, iceoryx2, rclpy), two processes.

    pingpong.py --system baton|iceoryx2|rclpy [--mode blocking|busy-poll] [--sizes 64,64K,4M]
                [--samples N] [--quick] [--json out/bench/python.json]

The parent ("ping") publishes a message of `size` bytes whose first 8 bytes carry a sequence
number; the echo child (this script with --role echo, started by the parent with the same
interpreter) takes it and answers with a message of the same size carrying the same number.
The parent times the round trip with time.perf_counter_ns(); one-way latency = RTT / 2, in us.
10 % extra round trips are a discarded warm-up. Each side writes its message through its
system's own Python API, zero-copy where it has one:
  baton     loan() -> numpy view, write 8 bytes, publish; take() -> numpy view (no copy)
  iceoryx2  loan_slice_uninit() -> write 8 bytes at payload_ptr, send; receive() (polling: the
            Python API has no blocking receive without an event service, so busy-poll only)
  rclpy     std_msgs/UInt8MultiArray on rmw_fastrtps_cpp (serialised, copied), executor wait
Prints one JSON line per (size, mode) and appends it to --json.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import statistics
import struct
import subprocess
import sys
import time

SEQ = struct.Struct("<Q")


def parse_size(s: str) -> int:
    s = s.strip().upper()
    mult = {"K": 1024, "M": 1024 * 1024}.get(s[-1:], 1)
    return int(s[:-1] if mult != 1 else s) * mult


def default_samples(size: int, quick: bool) -> int:
    n = 5000 if size <= 65536 else (1000 if size <= 4 << 20 else 200)
    return max(n // 10, 20) if quick else n


# --- transports: each offers send(seq), recv(timeout_s) -> seq | None, close() ----------------


class Baton:
    def __init__(self, out_topic: str, in_topic: str, size: int, mode: str):
        import numpy as np

        import baton

        self.ctx = baton.Context.create()
        self.node = baton.Node(self.ctx, "pingpong")
        qos = baton.QoS(10).reliable().reliable_timeout(10.0)
        self.pub = (
            self.node.raw_publisher(out_topic, "baton_bench/msg/Payload")
            .qos(qos)
            .max_message_size(max(size, 256))
            .create()
        )
        self.sub = (
            self.node.raw_subscription(in_topic, "baton_bench/msg/Payload")
            .qos(qos)
            .wait_mode(mode)
            .create()
        )
        self.native = self.pub._pub
        self.size = size
        self.np = np

    def ready(self) -> bool:
        return self.pub.subscription_count > 0

    def send(self, seq: int) -> None:
        loan = self.native.loan(None, self.size)
        loan.array[:8] = self.np.frombuffer(SEQ.pack(seq), self.np.uint8)  # in place, no copy
        self.native.publish(loan)

    def recv(self, timeout: float):
        s = self.sub.take(timeout)
        if s is None:
            return None
        a = s.array  # a read-only view of shared memory
        seq = int(a[:8].view(self.np.uint64)[0])
        s.release()
        return seq

    def close(self) -> None:
        self.ctx.shutdown()


class Iceoryx2:
    def __init__(self, out_topic: str, in_topic: str, size: int, mode: str):
        import iceoryx2 as iox2

        self.iox2 = iox2
        iox2.set_log_level_from_env_or(iox2.LogLevel.Warn)
        self.node = iox2.NodeBuilder.new().create(iox2.ServiceType.Ipc)

        def service(name: str):
            return (
                self.node.service_builder(iox2.ServiceName.new(name))
                .publish_subscribe(iox2.Slice[ctypes.c_uint8])
                .subscriber_max_buffer_size(10)
                .history_size(0)
                .open_or_create()
            )

        self.out_service = service(out_topic)
        self.in_service = service(in_topic)
        self.pub = self.out_service.publisher_builder().initial_max_slice_len(size).create()
        self.sub = self.in_service.subscriber_builder().create()
        self.size = size

    def ready(self) -> bool:
        return self.out_service.dynamic_config.number_of_subscribers > 0

    def send(self, seq: int) -> None:
        sample = self.pub.loan_slice_uninit(self.size)
        ctypes.memmove(sample.payload_ptr, SEQ.pack(seq), 8)
        sample.assume_init().send()

    def recv(self, timeout: float):
        deadline = time.perf_counter() + timeout
        while True:
            sample = self.sub.receive()
            if sample is not None:
                seq = SEQ.unpack(ctypes.string_at(sample.payload_ptr, 8))[0]
                sample.delete()
                return seq
            if time.perf_counter() > deadline:
                return None

    def close(self) -> None:
        pass


class Rclpy:
    def __init__(self, out_topic: str, in_topic: str, size: int, mode: str):
        import array

        import rclpy
        from rclpy.executors import SingleThreadedExecutor
        from std_msgs.msg import UInt8MultiArray

        self.rclpy = rclpy
        rclpy.init()
        self.node = rclpy.create_node(f"pingpong_{os.getpid()}")
        self.pub = self.node.create_publisher(UInt8MultiArray, out_topic, 10)
        self.got: list = []
        self.sub = self.node.create_subscription(
            UInt8MultiArray, in_topic, lambda m: self.got.append(m), 10
        )
        self.exec = SingleThreadedExecutor()
        self.exec.add_node(self.node)
        self.msg = UInt8MultiArray()
        self.msg.data = array.array("B", bytes(size))
        self.size = size

    def ready(self) -> bool:
        return self.pub.get_subscription_count() > 0

    def send(self, seq: int) -> None:
        self.msg.data[0:8] = __import__("array").array("B", SEQ.pack(seq))
        self.pub.publish(self.msg)

    def recv(self, timeout: float):
        deadline = time.perf_counter() + timeout
        while not self.got:
            left = deadline - time.perf_counter()
            if left <= 0:
                return None
            self.exec.spin_once(timeout_sec=left)
        m = self.got.pop(0)
        return SEQ.unpack(bytes(m.data[0:8]))[0]

    def close(self) -> None:
        self.exec.shutdown()
        self.node.destroy_node()
        self.rclpy.shutdown()


SYSTEMS = {"baton": Baton, "iceoryx2": Iceoryx2, "rclpy": Rclpy}


def topics(run_id: str, system: str) -> tuple[str, str]:
    if system == "iceoryx2":
        return f"baton_bench/{run_id}/ping", f"baton_bench/{run_id}/pong"
    return f"/bench_{run_id}/ping", f"/bench_{run_id}/pong"


def echo(args: argparse.Namespace) -> int:
    ping, pong = topics(args.run_id, args.system)
    t = SYSTEMS[args.system](pong, ping, args.size, args.mode)
    print("ready", flush=True)
    idle_deadline = time.monotonic() + 60
    while time.monotonic() < idle_deadline:
        seq = t.recv(1.0)
        if seq is None:
            continue
        if seq == 2**64 - 1:
            break
        t.send(seq)
        idle_deadline = time.monotonic() + 30
    t.close()
    return 0


def ping(args: argparse.Namespace, size: int) -> dict:
    run_id = f"{os.getpid()}_{size}"
    ping_t, pong_t = topics(run_id, args.system)
    t = SYSTEMS[args.system](ping_t, pong_t, size, args.mode)
    child = subprocess.Popen(
        [
            sys.executable,
            __file__,
            "--role",
            "echo",
            "--system",
            args.system,
            "--mode",
            args.mode,
            "--run-id",
            run_id,
            "--size",
            str(size),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        if child.stdout.readline().strip() != "ready":
            raise RuntimeError(f"echo side failed to start (exit {child.wait()})")
        # Discovery: resend the first ping until the echo answers.
        deadline = time.monotonic() + 20
        while True:
            if time.monotonic() > deadline:
                raise RuntimeError("echo side never answered (discovery failed)")
            if t.ready():
                t.send(0)
                if t.recv(0.5) == 0:
                    break
            else:
                time.sleep(0.01)
        while t.recv(0.05) is not None:  # drain duplicate answers of the discovery pings
            pass
        n = args.samples or default_samples(size, args.quick)
        warm = max(n // 10, 1)
        rtts = []
        for i in range(1, n + warm + 1):
            start = time.perf_counter_ns()
            t.send(i)
            got = t.recv(10.0)
            end = time.perf_counter_ns()
            if got != i:
                raise RuntimeError(f"round trip {i}: got {got}")
            if i > warm:
                rtts.append((end - start) / 2000.0)
        t.send(2**64 - 1)
    finally:
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
        t.close()
    raw_dir = os.environ.get("BATON_BENCH_RAW_DIR", "")
    if raw_dir:  # bench/suite: every one-way sample in order (µs)
        name = f"python-{args.system}_{args.mode}_{size}.csv"
        with open(os.path.join(raw_dir, name), "w") as fh:
            fh.write("".join(f"{v:.4f}\n" for v in rtts))
    rtts.sort()
    return {
        "system": f"python-{args.system}",
        "mode": args.mode,
        "size": size,
        "median": round(statistics.median(rtts), 2),
        "p99": round(rtts[min(len(rtts) - 1, int(len(rtts) * 0.99))], 2),
        "max": round(rtts[-1], 2),
        "samples": len(rtts),
        "unit": "us",
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--system", choices=sorted(SYSTEMS), required=True)
    ap.add_argument("--mode", default="blocking", choices=("blocking", "busy-poll"))
    ap.add_argument("--sizes", default="64,64K,4M")
    ap.add_argument("--samples", type=int, default=0)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", default="")
    ap.add_argument("--role", default="ping", choices=("ping", "echo"), help=argparse.SUPPRESS)
    ap.add_argument("--run-id", default="", help=argparse.SUPPRESS)
    ap.add_argument("--size", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.role == "echo":
        return echo(args)
    for size in (parse_size(s) for s in args.sizes.split(",")):
        row = ping(args, size)
        line = json.dumps(row)
        print(line, flush=True)
        if args.json:
            with open(args.json, "a") as fh:
                fh.write(line + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
