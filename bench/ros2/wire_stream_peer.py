"""rclpy peer of the wire stream benchmark (bench/suite/exp_wire_stream.py): sensor_msgs/msg/Image
at a fixed rate from a talker to a listener, on whatever RMW the environment selects
(RMW_IMPLEMENTATION; rmw_baton_cpp also needs LD_PRELOAD). Runs with .venv-ros/bin/python.

    wire_stream_peer.py listen --size 4k --qos reliable --topic T --count N --records FILE
                               --stop-file F [--max-seconds S]
    wire_stream_peer.py talk   --size 4k --qos reliable --topic T --count N --rate HZ
                               --stop-file F [--match-timeout S] [--max-seconds S]

Images (--size): 4k = 3840x2160 rgb8 (24 883 200 B), 1m = 1024x1024 mono8, 64k = 256x256 mono8.
Message seq (0, 1, ...): header.frame_id = str(seq); header.stamp = wall clock (time.time_ns) just
before publish; data[i] = (7 i + 13 + seq % 4) mod 256, so consecutive messages differ and the
listener compares each image byte for byte against one of four frames it computed before it
said "ready" (numpy.array_equal; no hash). baton-bench-ros2-wire-talker (C++ Ros2Publisher)
follows the same convention.
QoS (--qos): reliable or best-effort, keep last 10, volatile.

talk: waits until the publisher has matched a subscription (get_subscription_count() > 0, at most
--match-timeout s), then publishes seq 0 at once (no settle sleep) and seq k at t0 + k / rate (a
late publish goes out at once; none is skipped). Prints "matched", then
"sent <N> <seconds> <publish errors>", then stays (spinning, so a reliable writer can repeat)
until the stop file exists or --max-seconds pass.

listen: prints "ready" once its subscription exists; per message appends to --records one line
"seq latency_ns ok" (latency = wall clock at the callback's start - header.stamp, same host;
ok = 1 if width, height, encoding, step and data are the expected ones). Exits when it has every
seq below --count, or when the stop file exists, or after --max-seconds; prints
"listened <received> <verified> <seconds>". The runner kills a listener that does not exit (an
rclpy Fast DDS listener has been seen to spin at 100 % CPU in Fast DDS's take).
"""

from __future__ import annotations

import argparse
import array
import ctypes
import os
import signal
import sys
import time
from pathlib import Path

import numpy as np
import rclpy
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from rclpy.signals import SignalHandlerOptions
from sensor_msgs.msg import Image

# size name -> (height, width, encoding, bytes per pixel)
SHAPES = {
    "4k": (2160, 3840, "rgb8", 3),
    "1m": (1024, 1024, "mono8", 1),
    "64k": (256, 256, "mono8", 1),
}
PATTERNS = 4  # frames differ by seq % PATTERNS


def die_with_parent() -> None:
    """SIGKILL from the kernel when the runner dies, so no peer outlives a stopped suite."""
    parent = os.getppid()
    ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:
        os._exit(1)


def frames(size: str) -> list[np.ndarray]:
    """The PATTERNS expected data arrays of `size`: frame k = (7 i + 13 + k) mod 256."""
    h, w, _, c = SHAPES[size]
    base = (np.arange(h * w * c, dtype=np.uint32) * 7 + 13).astype(np.uint8)
    return [base + np.uint8(k) for k in range(PATTERNS)]


def qos(name: str) -> QoSProfile:
    q = QoSProfile(depth=10, history=HistoryPolicy.KEEP_LAST)
    q.durability = DurabilityPolicy.VOLATILE
    q.reliability = (
        ReliabilityPolicy.BEST_EFFORT if name == "best-effort" else (ReliabilityPolicy.RELIABLE)
    )
    return q


def say(text: str) -> None:
    print(text, flush=True)


def talk(node, a) -> int:
    h, w, enc, c = SHAPES[a.size]
    # array.array('B') is what rclpy stores uint8[] as: assigning one skips the per-element check
    # a bytes / list value would get (seconds for 24 MB).
    data = [array.array("B", f.tobytes()) for f in frames(a.size)]
    pub = node.create_publisher(Image, a.topic, qos(a.qos))
    stop = Path(a.stop_file)
    started = time.monotonic()
    while pub.get_subscription_count() == 0:
        if time.monotonic() - started > a.match_timeout or stop.exists():
            say(f"error: no subscription matched within {a.match_timeout:.0f} s")
            return 1
        rclpy.spin_once(node, timeout_sec=0.01)
    say(f"matched {time.monotonic() - started:.3f}")
    errors = 0
    t0 = time.monotonic()
    for seq in range(a.count):
        target = t0 + seq / a.rate
        while (left := target - time.monotonic()) > 0:
            time.sleep(min(left, 0.01))
        m = Image(height=h, width=w, encoding=enc, step=w * c)
        m.header.frame_id = str(seq)
        m.data = data[seq % PATTERNS]
        now = time.time_ns()
        m.header.stamp.sec, m.header.stamp.nanosec = divmod(now, 10**9)
        try:
            pub.publish(m)
        except Exception as e:  # noqa: BLE001 - counted and reported
            errors += 1
            say(f"publish {seq} failed: {e}")
    say(f"sent {a.count} {time.monotonic() - t0:.3f} {errors}")
    end = time.monotonic() + a.max_seconds
    while not stop.exists() and time.monotonic() < end:
        rclpy.spin_once(node, timeout_sec=0.05)
    return 0


def listen(node, a) -> int:
    h, w, enc, c = SHAPES[a.size]
    expected = frames(a.size)
    seen: set[int] = set()
    verified = 0
    out = open(a.records, "w", buffering=1)  # line-buffered: a killed listener keeps its lines

    def on_image(m: Image) -> None:
        nonlocal verified
        now = time.time_ns()
        latency = now - (m.header.stamp.sec * 10**9 + m.header.stamp.nanosec)
        try:
            seq = int(m.header.frame_id)
        except ValueError:
            seq = -1
        ok = (
            seq >= 0
            and (m.height, m.width, m.encoding, m.step) == (h, w, enc, w * c)
            and np.array_equal(np.frombuffer(m.data, dtype=np.uint8), expected[seq % PATTERNS])
        )
        verified += ok
        seen.add(seq)
        out.write(f"{seq} {latency} {int(ok)}\n")

    node.create_subscription(Image, a.topic, on_image, qos(a.qos))
    say("ready")
    stop = Path(a.stop_file)
    started = time.monotonic()
    end = started + a.max_seconds
    everything = set(range(a.count))
    while time.monotonic() < end and not stop.exists() and not everything <= seen:
        rclpy.spin_once(node, timeout_sec=0.05)
    out.close()
    say(f"listened {len(seen)} {verified} {time.monotonic() - started:.3f}")
    return 0


def main() -> int:
    die_with_parent()
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("role", choices=["talk", "listen"])
    ap.add_argument("--size", choices=sorted(SHAPES), required=True)
    ap.add_argument("--qos", choices=["reliable", "best-effort"], required=True)
    ap.add_argument("--topic", required=True)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--rate", type=float, default=10.0)
    ap.add_argument("--records", default=os.devnull)
    ap.add_argument("--stop-file", required=True)
    ap.add_argument("--match-timeout", type=float, default=30.0)
    ap.add_argument("--max-seconds", type=float, default=120.0)
    a = ap.parse_args()
    # No rclpy signal handlers: the runner stops peers with the stop file or SIGKILL.
    rclpy.init(signal_handler_options=SignalHandlerOptions.NO)
    node = rclpy.create_node(f"wire_stream_{a.role}_{os.getpid()}")
    try:
        return talk(node, a) if a.role == "talk" else listen(node, a)
    finally:
        node.destroy_node()
        rclpy.try_shutdown()


if __name__ == "__main__":
    sys.exit(main())
