"""The processes of the bag benchmark (bench/bag/run.py starts them; each under its system's
Python: .venv for baton, /usr/bin/python3 for rospy, .venv-ros for rclpy).

    roles.py pub --system baton|rospy|rclpy --stream 4k|64b --rate HZ --count N --topic T
    roles.py rec-rclpy --topic T --stream 4k|64b --out FILE.mcap --schema-file F
        [--compression none|zstd|lz4]

A publisher waits until a subscriber is matched, prints "start <monotonic ns>", publishes
`count` messages at `rate` on absolute deadlines (a late message is sent at once, never
skipped), prints "done <published> <monotonic ns>" and exits when its stdin closes. The 4K stream is
sensor_msgs/Image rgb8 3840x2160 (baton: an NDArray of that shape, baton's camera path) with a
textured picture (gradient + noise: compressible as a camera image is, not as zeros are); the
64 B stream is 64 bytes (std_msgs/UInt8MultiArray for ROS, a 64-byte NDArray for baton). The
baton publisher writes the picture into each pool chunk once and then only a frame counter, as
a camera's DMA fills a loan without the CPU; rospy and rclpy serialize and send the whole frame
each time, which is their transport's own cost. The
rclpy recorder is what ros2 bag does, in Python: serialized messages (raw=True) from a
reliable subscription into mcap's Writer with the ros2msg schema of mcap-ros2-support.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

H, W = 2160, 3840
ROOT = Path(__file__).resolve().parents[2]


def picture() -> bytes:
    """The 4K frame every publisher sends (the driver writes it once: rospy has no numpy)."""
    return (ROOT / "out/bench/bag-4k.rgb").read_bytes()


def make_picture(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(7)
    y = np.arange(H, dtype=np.uint16)[:, None]
    x = np.arange(W, dtype=np.uint16)[None, :]
    img = np.empty((H, W, 3), np.uint8)
    noise = rng.integers(0, 24, (H, W), dtype=np.uint8)
    img[..., 0] = ((x >> 4) + noise).astype(np.uint8)
    img[..., 1] = ((y >> 3) + noise).astype(np.uint8)
    img[..., 2] = (((x + y) >> 5) ^ noise).astype(np.uint8)
    path.write_bytes(img.tobytes())


def paced(count: int, rate: float, send) -> None:
    """Publishes, says done, and stays (its messages with it) until stdin closes."""
    print(f"start {time.monotonic_ns()}", flush=True)
    t0 = time.monotonic()
    for i in range(count):
        delay = t0 + i / rate - time.monotonic()
        if delay > 0:
            time.sleep(delay)  # the publisher's clock, not a synchronisation
        send(i)
    print(f"done {count} {time.monotonic_ns()}", flush=True)
    sys.stdin.read()  # the driver closes it once the recorder has written everything


def wait_matched(count_fn, seconds: float = 90.0) -> None:
    deadline = time.monotonic() + seconds
    while count_fn() == 0:
        if time.monotonic() > deadline:
            sys.exit(f"error: no subscriber matched within {seconds:.0f} s")
        time.sleep(0.02)


def pub_baton(a) -> None:
    import numpy as np

    import baton

    ctx = baton.Context.create(janitor_period=0.0)
    node = baton.Node(ctx, "bag_bench_pub")
    if a.stream == "4k":
        img = np.frombuffer(picture(), np.uint8).reshape(H, W, 3)
        pub = node.publisher(a.topic, np.uint8, img.shape).qos(baton.QoS(a.depth)).create()
    else:
        img = np.arange(64, dtype=np.uint8)
        pub = node.publisher(a.topic, np.uint8, (64,)).qos(baton.QoS(a.depth)).create()
    wait_matched(pub.get_subscription_count)

    filled: set[int] = set()

    def send(i: int) -> None:
        loan = pub.loan()
        arr = loan.array
        if loan.data_ptr not in filled:  # a pool chunk's first use: the picture, once
            arr[...] = img
            filled.add(loan.data_ptr)
        # A camera's DMA fills the loan without the CPU: the frame counter stands for it
        arr.reshape(-1)[:8] = np.frombuffer(i.to_bytes(8, "little"), np.uint8)
        loan.publish()

    paced(a.count, a.rate, send)
    node.destroy_node()


def pub_rospy(a) -> None:
    import rospy
    from sensor_msgs.msg import Image
    from std_msgs.msg import UInt8MultiArray

    rospy.init_node("bag_bench_pub", anonymous=True, disable_signals=True)
    if a.stream == "4k":
        msg = Image(height=H, width=W, encoding="rgb8", step=W * 3, data=picture())
        pub = rospy.Publisher(a.topic, Image, queue_size=a.depth)
    else:
        msg = UInt8MultiArray(data=bytes(range(64)))
        pub = rospy.Publisher(a.topic, UInt8MultiArray, queue_size=a.depth)
    wait_matched(pub.get_num_connections)
    paced(a.count, a.rate, lambda i: pub.publish(msg))
    rospy.signal_shutdown("done")


def ros2_types(stream: str):
    from sensor_msgs.msg import Image
    from std_msgs.msg import UInt8MultiArray

    return (
        (Image, "sensor_msgs/msg/Image")
        if stream == "4k"
        else (
            UInt8MultiArray,
            "std_msgs/msg/UInt8MultiArray",
        )
    )


def pub_rclpy(a) -> None:
    import rclpy
    from rclpy.qos import QoSProfile

    rclpy.init()
    node = rclpy.create_node("bag_bench_pub")
    cls, _ = ros2_types(a.stream)
    if a.stream == "4k":
        msg = cls(height=H, width=W, encoding="rgb8", step=W * 3)
        msg.data = picture()
    else:
        msg = cls(data=bytes(range(64)))
    pub = node.create_publisher(cls, a.topic, QoSProfile(depth=a.depth))
    wait_matched(pub.get_subscription_count)
    paced(a.count, a.rate, lambda i: pub.publish(msg))
    node.destroy_node()
    rclpy.shutdown()


def rec_rclpy(a) -> None:
    """ros2 bag record, in Python: rclpy serialized messages into the mcap package's Writer."""
    import signal

    import rclpy
    from rclpy.qos import QoSProfile, ReliabilityPolicy

    # mcap + mcap-ros2-support are in .venv: after .venv-ros's own packages on the path
    sys.path.append(str(next((ROOT / ".venv/lib").glob("python3*/site-packages"))))
    from mcap.writer import CompressionType, Writer
    from mcap_ros2.decoder import DecoderFactory  # noqa: F401  (mcap-ros2-support is there)

    rclpy.init()
    node = rclpy.create_node("bag_bench_rec")
    cls, type_name = ros2_types(a.stream)
    comp = {"none": CompressionType.NONE, "zstd": CompressionType.ZSTD, "lz4": CompressionType.LZ4}
    # the full .msg definition (what ros2 bag stores), made by the driver with baton.bag
    schema = Path(a.schema_file).read_bytes()
    files: list = []  # [file, writer, channel id] of the file being written

    def open_next() -> None:
        if files:
            files[1].finish()
            files[0].close()
        index = files[3] + 1 if files else 0
        out = Path(a.out)
        f = open(out.with_name(f"{out.stem}_{index}.mcap"), "wb")
        w = Writer(f, compression=comp[a.compression])
        w.start("ros2", "bench-rclpy-recorder")
        sid = w.register_schema(type_name, "ros2msg", schema)
        files[:] = [f, w, w.register_channel(a.topic, "cdr", sid), index]

    open_next()
    n = [0]

    def on_msg(raw: bytes) -> None:
        t = time.time_ns()
        files[1].add_message(files[2], t, raw, t, n[0])
        n[0] += 1
        if a.split and files[0].tell() >= a.split:  # split by size, as ros2 bag -b does
            open_next()

    qos = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
    node.create_subscription(cls, a.topic, on_msg, qos, raw=True)
    stop = [False]
    signal.signal(signal.SIGINT, lambda *_: stop.__setitem__(0, True))
    signal.signal(signal.SIGTERM, lambda *_: stop.__setitem__(0, True))
    print("ready", flush=True)
    while not stop[0]:
        rclpy.spin_once(node, timeout_sec=0.1)
    files[1].finish()
    files[0].close()
    print(f"recorded {n[0]}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("role", choices=("pub", "rec-rclpy"))
    ap.add_argument("--system", choices=("baton", "rospy", "rclpy"))
    ap.add_argument("--stream", choices=("4k", "64b"), required=True)
    ap.add_argument("--topic", required=True)
    ap.add_argument("--rate", type=float, default=30.0)
    ap.add_argument("--count", type=int, default=600)
    ap.add_argument("--depth", type=int, default=10, help="publisher queue (QoS depth)")
    ap.add_argument("--out")
    ap.add_argument("--compression", default="none")
    ap.add_argument("--schema-file")
    ap.add_argument("--split", type=int, default=0, help="rec-rclpy: new file after N bytes")
    a = ap.parse_args()
    if a.role == "rec-rclpy":
        rec_rclpy(a)
    else:
        {"baton": pub_baton, "rospy": pub_rospy, "rclpy": pub_rclpy}[a.system](a)
    os._exit(0)  # skip the ROS clients' slow teardown threads


if __name__ == "__main__":
    sys.exit(main())
