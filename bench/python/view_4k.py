"""What `baton view` costs for a 4K 30 Hz camera: a publisher process sends 3840x2160 rgb8
frames (uint8 arrays, through loans) at 30 Hz; `baton view` serves them; a Foxglove WebSocket
client subscribes to one channel and counts what it receives. Reported per configuration:
frames published and delivered per second, the viewer's CPU (% of one core, from
/proc/<pid>/stat) and its resident memory.

    PYTHONPATH=build/python .venv/bin/python bench/python/view_4k.py [--seconds 20] [--json PATH]

Configurations: compressed channel at scale 1 / 2 / 4 (default 15 Hz bound, and
--max-rate 30), and the raw channel (24.9 MB frames over the WebSocket) for comparison.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

PUBLISHER = r"""
import sys, time, numpy as np, baton
h, w = 2160, 3840
y, x = np.mgrid[0:h, 0:w]
frames = [np.stack([(x + 40 * i) % 256, y * 255 // h, (x + y + 9 * i) % 256], -1).astype(np.uint8)
          for i in range(4)]
node = baton.Node("camera")
pub = node.publisher("/frames", np.uint8, (h, w, 3)).qos(baton.QoS(2)).reserve(4).create()
print("ready", flush=True)
period, n, start = 1 / 30, 0, time.monotonic()
end = start + float(sys.argv[1])
while time.monotonic() < end:
    with pub.loan() as a:
        a[:] = frames[n % 4]
    n += 1
    time.sleep(max(0.0, start + n * period - time.monotonic()))
print(n / (time.monotonic() - start), flush=True)
"""


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def measure(view_args: list[str], channel: str, seconds: float, env: dict) -> dict:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python" / "tests"))
    from test_view import FoxgloveClient  # the tests' protocol client

    pub = subprocess.Popen(
        [sys.executable, "-c", PUBLISHER, str(seconds + 6)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert pub.stdout.readline().strip() == "ready"
    view = subprocess.Popen(
        [sys.executable, "-m", "baton", "view", "--port", "0", *view_args],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    url = view.stdout.readline().split()[1]
    client = FoxgloveClient(url)
    sub = client.subscribe(channel)
    warm = time.monotonic() + 3
    while time.monotonic() < warm:
        client.pump(0.05)
    got0, cpu0, t0 = len(client.messages[sub]), cpu_seconds(view.pid), time.monotonic()
    nbytes = 0
    while time.monotonic() < t0 + seconds:
        client.pump(0.05)
    elapsed = time.monotonic() - t0
    got = client.messages[sub][got0:]
    nbytes = sum(len(m) for m in got)
    row = {
        "view_args": " ".join(view_args),
        "channel": channel,
        "delivered_hz": round(len(got) / elapsed, 2),
        "viewer_cpu_pct": round(100 * (cpu_seconds(view.pid) - cpu0) / elapsed, 1),
        "viewer_rss_mb": round(rss_mb(view.pid), 1),
        "mean_message_kb": round(nbytes / max(len(got), 1) / 1000, 1),
    }
    client.close()
    view.terminate()
    view.wait(30)
    row["published_hz"] = round(float(pub.communicate(timeout=60)[0].strip()), 2)
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--json", default="", help="append one JSON line per configuration")
    args = ap.parse_args()
    configs = [
        (["--image-scale", "2"], "/frames/compressed"),
        (["--image-scale", "2", "--max-rate", "30"], "/frames/compressed"),
        (["--image-scale", "4", "--max-rate", "30"], "/frames/compressed"),
        (["--jpeg-quality", "75", "--max-rate", "30"], "/frames/compressed"),
        ([], "/frames"),
    ]
    for view_args, channel in configs:
        env = dict(os.environ, BATON_NAMESPACE=f"viewbench-{uuid.uuid4().hex[:8]}")
        row = measure(view_args, channel, args.seconds, env)
        row["cpus"] = os.cpu_count()
        print(json.dumps(row), flush=True)
        if args.json:
            with open(args.json, "a") as f:
                f.write(json.dumps(row) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
