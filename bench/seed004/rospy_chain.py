"""One node of seed 004's chain (para_in -> add_para -> add) as a stock rospy node.

    /usr/bin/python3 bench/seed004/rospy_chain.py --system rospy --role relay ...

Roles, options, messages and logs are chain_roles.hpp's (read it first), here in Python on top of
bench/suite/py_stream.py (its option parser, its sender, its log and sync-file helpers):
  sender   (para_in)  py_stream's sender
  relay    (add_para) publishes from inside its subscription callback, value += seq
  receiver (add)      logs "seq t_recv_ns size" inside its subscription callback
rospy calls a subscription back on the connection's own thread; publishers have queue_size=None
(publish() writes to the sockets in the caller's thread), subscribers tcp_nodelay=True.
Messages: --sizes 8 is std_msgs/Int32MultiArray data [seq, value] (the paper's two int32),
--sizes 24883200 a 3840x2160 rgb8 sensor_msgs/Image with header.stamp.secs = seq and
header.frame_id = value in decimal (rospy overwrites header.seq).
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "suite"))
import py_stream  # noqa: E402

TWO_INT32, IMAGE_W, IMAGE_H = 8, 3840, 2160
IMAGE_BYTES = IMAGE_W * IMAGE_H * 3


def as_int32(u: int) -> int:
    return u - (1 << 32) if u >= 1 << 31 else u


class RospyChain:
    """The client for one node: an Int32MultiArray or Image publisher and / or subscription."""

    def __init__(self, a):
        import rospy

        if a.sizes not in ([TWO_INT32], [IMAGE_BYTES]):
            raise SystemExit(
                f"error: seed 004 nodes send two int32 (--sizes {TWO_INT32}) or a 4K image "
                f"(--sizes {IMAGE_BYTES})"
            )
        self.rospy, self.image = rospy, a.sizes == [IMAGE_BYTES]
        if self.image:
            from sensor_msgs.msg import Image

            self.Msg = Image
            self.out = Image(height=IMAGE_H, width=IMAGE_W, encoding="rgb8", step=IMAGE_W * 3)
            self.out.data = bytes((i * 7 + 13) & 0xFF for i in range(256)) * (IMAGE_BYTES // 256)
        else:
            from std_msgs.msg import Int32MultiArray

            self.Msg = Int32MultiArray
            self.out = Int32MultiArray(data=[0, 0])
        rospy.init_node(
            f"seed004_{a.name}".replace(".", "_"),
            anonymous=True,
            disable_signals=True,
            disable_rosout=True,
        )

    def advertise(self, topic: str) -> None:
        self.pub = self.rospy.Publisher(topic, self.Msg, queue_size=None, tcp_nodelay=True)

    def subscribe(self, topic: str, on_message) -> None:
        if self.image:

            def cb(m):
                on_message(m.header.stamp.secs, int(m.header.frame_id), len(m.data))
        else:

            def cb(m):
                if len(m.data) != 2:
                    raise SystemExit("error: rospy: Int32MultiArray without two values")
                on_message(m.data[0] & 0xFFFFFFFF, m.data[1] & 0xFFFFFFFF, TWO_INT32)

        self.sub = self.rospy.Subscriber(topic, self.Msg, cb, queue_size=100, tcp_nodelay=True)

    def send(self, seq: int, value: int, size: int = 0) -> None:
        if self.image:
            self.out.header.stamp.secs = seq
            self.out.header.frame_id = str(value)
        else:
            self.out.data = [as_int32(seq), as_int32(value)]
        self.pub.publish(self.out)


class Roles(py_stream.Roles):
    """py_stream's sender; a receiver and a relay that work inside the subscription callback."""

    def receiver(self) -> int:
        a, lock, end = self.a, threading.Lock(), threading.Event()
        log, state = [], {"ready": False, "corrupt": 0}

        def on_message(seq: int, value: int, size: int) -> None:
            t = py_stream.now_ns()
            with lock:
                if end.is_set():
                    return
                if seq == py_stream.HELLO:
                    if not state["ready"]:
                        self.touch("ready")
                    state["ready"] = True
                elif seq == py_stream.END:
                    end.set()
                else:
                    expect = py_stream.source_value(seq)
                    for _ in range(a.relays):
                        expect = py_stream.relayed_value(seq, expect)
                    if seq >= self.total or value != expect or size != self.size_of(seq):
                        state["corrupt"] += 1
                    else:
                        log.append((seq, t, size))

        self.t.subscribe(a.inp, on_message)
        while not end.wait(0.2):
            self.check_deadline("waiting for messages")
        with lock:
            self.write_log("recv", log)
        self.touch("done")
        if state["corrupt"]:
            print(f"warning: {a.name}: {state['corrupt']} corrupt messages", file=sys.stderr)
        return 2 if state["corrupt"] else 0

    def relay(self) -> int:
        t = self.t
        t.advertise(self.a.out)

        def on_message(seq: int, value: int, size: int) -> None:
            t.send(seq, value if seq >= py_stream.END else py_stream.relayed_value(seq, value))

        t.subscribe(self.a.inp, on_message)
        while True:  # until the coordinator's SIGTERM
            threading.Event().wait(0.2)
            self.check_deadline("relaying")


def main() -> int:
    a = py_stream.parse_args(doc=__doc__)
    if a.system != "rospy":
        raise SystemExit("error: rospy_chain.py is the rospy node (--system rospy)")
    if a.role not in ("sender", "relay", "receiver"):
        raise SystemExit("error: seed 004 nodes are a sender, a relay or a receiver")
    return getattr(Roles(a, RospyChain(a)), a.role)()


if __name__ == "__main__":
    os.environ.setdefault("ROS_IP", "127.0.0.1")
    sys.exit(main())
