"""A second process publishing 4K rgb8 sensor_msgs/Image frames with baton.ros1.

    ros1_image_talker.py TOPIC COUNT
Prints "ready" once the publisher is registered, publishes COUNT frames (frame i: every byte
is i, header.seq = i) when it reads "go" on stdin, prints "published", and exits when stdin
closes. ROS_MASTER_URI etc. come from the environment.
"""

import sys

import numpy as np

from baton import ros1

W, H = 3840, 2160

topic, count = sys.argv[1], int(sys.argv[2])
node = ros1.Node("baton_image_talker", anonymous=True, argv=[])
pub = node.publisher(topic, "sensor_msgs/Image")
print("ready", flush=True)
for line in sys.stdin:
    if line.strip() == "go":
        break
frame = np.empty(W * H * 3, np.uint8)
for i in range(count):
    frame.fill(i)
    msg = {"header": {"seq": i, "frame_id": "cam"}, "height": H, "width": W}
    pub.publish(dict(msg, encoding="rgb8", step=W * 3, data=frame))
print("published", flush=True)
sys.stdin.read()
node.close()
