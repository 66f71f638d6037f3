"""Bag recording benchmark (issue 21): baton bag record against ROS 1 `rosbag record` and an
rclpy + mcap recorder on Fast DDS, in one run, on the same streams.

    .venv/bin/python bench/bag/run.py                   # 20 s per run, every case (~20 min)
    .venv/bin/python bench/bag/run.py --quick           # 4 s per run, /dev/shm, a few cases
    .venv/bin/python bench/bag/run.py --only baton --streams 4k --dests shm

Streams: a 4K rgb8 camera (24.9 MB frames) at 30 Hz and 64 B messages at 1 kHz, published by
a separate process of the recorder's system (bench/bag/roles.py). Destinations: /dev/shm and
the disk (out/bench/bag-bench-*). Compression off and on (baton: --no-chunks, chunked
uncompressed, lz4 and zstd; rosbag: none and --lz4; rclpy: none and zstd). Every recorder
splits its files at 1 GiB and the driver deletes each finished file once it has counted its
messages, so a 20 s 4K run (15 GB) never holds more than a few GiB of this shared machine's
memory.

Per run: published (what the publisher sent once a subscriber was matched), recorded (messages
in the files), lost = published - recorded, the recorder's own loss count (baton), recorder
CPU % = CPU seconds of the recorder's process tree from the first publish until it has written
everything, divided by the stream's duration (100 % = one core), MB/s = bytes written / stream
duration, peak RSS and peak anonymous RSS (sampled every 0.2 s; RSS counts the shared-memory
pages a zero-copy recorder maps, anon is its own memory). Play: a 5 s bag of each stream
recorded by baton (NDArray topics, --no-chunks, /dev/shm) is played back, the 1 kHz one taken
by the recorder in batches and logged at its publisher's stamps; the rate of the bag's log
times and of the subscriber's arrivals is 1 / the least-squares slope of time over message
index (first-to-last also given), and each played gap is compared with the recorded one
(`gaps_bunched`: logged under half a period apart) and with the publisher's own stamps
(`*_vs_published`: the NDArray header's, the original timing); it is played twice,
time-shared and then with the player and the subscriber's thread in SCHED_FIFO
(`--realtime-priority`, `realtime_*` keys; an `realtime_error` where the system refuses
real-time scheduling).
--depth sets every publisher's queue (default 10; baton's subscriber queues at most that).
JSON: out/bench/bag.json; --markdown prints the table for BENCHMARKS.md. The machine is shared:
figures are for a loaded machine, and only the ratios between systems measured in the same run
count.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "build/python"))  # baton (the bag reader counts messages)

from bench.suite.common import ExperimentFailed, machine  # noqa: E402
from bench.suite.stream import start_daemon  # noqa: E402

ROLES = Path(__file__).with_name("roles.py")
VENV_PY = ROOT / ".venv/bin/python"
ROS_PY = ROOT / ".venv-ros/bin/python"
STREAMS = {"4k": (30.0, 24883200), "64b": (1000.0, 64)}
SPLIT = 1 << 30
TICK = os.sysconf("SC_CLK_TCK")
# (system, compression label) -> recorder arguments; "off" and "on" as the issue asks
CASES = [
    ("baton", "off (no chunks)"),
    ("baton", "off (chunks)"),
    ("baton", "lz4"),
    ("baton", "zstd"),
    ("rosbag", "off"),
    ("rosbag", "lz4"),
    ("rclpy", "off"),
    ("rclpy", "zstd"),
]


@dataclass
class Run:
    system: str
    stream: str
    dest: str
    compression: str
    seconds: float
    depth: int = 10  # the publisher's queue (baton: its ring, the most a subscriber queues)
    published: int = 0
    recorded: int = 0
    lost: int = 0
    lost_reported: int | None = None
    cpu_pct: float = 0.0
    cpu_ms_per_msg: float = 0.0  # CPU per message recorded: fair when losses differ
    mb_s: float = 0.0
    rss_peak_mb: float = 0.0
    anon_peak_mb: float = 0.0
    error: str = ""
    notes: list = field(default_factory=list)


# -- process accounting ---------------------------------------------------------------------------


def _stat(pid: int) -> list[str] | None:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return raw[raw.rindex(")") + 2 :].split()


def tree(pid: int) -> list[int]:
    """pid and its live descendants (rosbag record is a Python script running a C++ child)."""
    kids: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit() and (st := _stat(int(d.name))) is not None:
            kids.setdefault(int(st[1]), []).append(int(d.name))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(kids.get(p, []))
    return out


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for p in pids:
        st = _stat(p)
        if st is not None:  # utime stime cutime cstime
            total += sum(int(x) for x in st[11:15])
    return total / TICK


def memory_mb(pids: list[int]) -> tuple[float, float]:
    rss = anon = 0
    for p in pids:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    rss += int(line.split()[1])
                elif line.startswith("RssAnon:"):
                    anon += int(line.split()[1])
        except OSError:
            pass
    return rss / 1024, anon / 1024


class Peak:
    """Samples the peak RSS and anonymous RSS of a process tree every 0.2 s."""

    def __init__(self, pid: int):
        self.pid, self.rss, self.anon = pid, 0.0, 0.0
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._loop, daemon=True)
        self._t.start()

    def _loop(self) -> None:
        while not self._stop.wait(0.2):
            rss, anon = memory_mb(tree(self.pid))
            self.rss, self.anon = max(self.rss, rss), max(self.anon, anon)

    def stop(self) -> None:
        self._stop.set()
        self._t.join()


# -- counting and deleting finished files -------------------------------------------------------


def count_messages(path: Path) -> int:
    if path.suffix == ".bag":
        code = "import rosbag,sys; print(rosbag.Bag(sys.argv[1]).get_message_count())"
        out = subprocess.run(
            ["/usr/bin/python3", "-c", code, str(path)],
            capture_output=True,
            text=True,
            env=_ros1_env({}),
            check=True,
        )
        return int(out.stdout.strip())
    from baton.bag import Reader

    return Reader(path).message_count


class Reaper:
    """Counts the messages of each finished file in `folder` and deletes it (a finished file:
    not the newest, not a ROS 1 `.active` one); `finish()` counts the rest."""

    def __init__(self, folder: Path):
        self.folder, self.count, self.bytes = folder, 0, 0
        self._done: set[str] = set()
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._loop, daemon=True)
        self._t.start()

    def _files(self) -> list[Path]:
        fs = [p for p in self.folder.iterdir() if p.suffix in (".mcap", ".bag")]
        return sorted(fs, key=lambda p: int(p.stem.rsplit("_", 1)[1]))  # x_<split index>

    def _take(self, p: Path) -> None:
        self.bytes += p.stat().st_size
        self.count += count_messages(p)
        self._done.add(p.name)
        p.unlink()

    def _loop(self) -> None:
        while not self._stop.wait(0.5):
            try:
                files = [p for p in self._files() if p.name not in self._done]
                for p in files[:-1]:
                    self._take(p)
            except (OSError, subprocess.CalledProcessError):
                pass  # a file renamed or still being closed: next round

    def written(self) -> int:
        return self.bytes + sum(p.stat().st_size for p in self.folder.iterdir() if p.is_file())

    def finish(self) -> None:
        self._stop.set()
        self._t.join()
        for p in self._files():
            if p.name not in self._done:
                self._take(p)


# -- systems --------------------------------------------------------------------------------------


def _ros1_env(env: dict) -> dict:
    e = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    e.update(env)
    return e


def _baton_env(env: dict) -> dict:
    return {**os.environ, **env, "PYTHONPATH": str(ROOT / "build/python")}


def _ros2_env(env: dict) -> dict:
    e = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    e.update(env, ROS_DOMAIN_ID="64", ROS_AUTOMATIC_DISCOVERY_RANGE="LOCALHOST")
    return e


def recorder_cmd(system: str, comp: str, stream: str, topic: str, folder: Path) -> list[str]:
    if system == "baton":
        cmd = [str(VENV_PY), "-m", "baton", "bag", "record", topic, "-o", str(folder / "b.mcap")]
        cmd += ["-b", str(SPLIT), "--format", "json", "--queue-depth", "100"]
        if comp == "off (no chunks)":
            return cmd + ["--no-chunks"]
        if comp.startswith("off"):
            return cmd + ["--compression", "none"]
        name, *level = comp.split()  # "zstd 1": --compression-level 1
        return cmd + ["--compression", name] + (["--compression-level", level[0]] if level else [])
    if system == "rosbag":
        cmd = ["rosbag", "record", topic, "-O", str(folder / "r.bag"), "--split"]
        cmd += [f"--size={SPLIT >> 20}", "--buffsize=1024"]
        return cmd + (["--lz4"] if comp == "lz4" else [])
    schema = ROOT / "out/bench" / f"{stream}.msgdef"
    cmd = [str(ROS_PY), str(ROLES), "rec-rclpy", "--topic", topic, "--stream", stream]
    cmd += ["--out", str(folder / "c.mcap"), "--schema-file", str(schema)]
    return cmd + ["--compression", "none" if comp == "off" else "zstd", "--split", str(SPLIT)]


def write_schemas(where: Path) -> None:
    """The full ros2msg definitions (what ros2 bag stores) for the rclpy recorder."""
    from baton.bag.schemas import ros2_definition

    os.environ.setdefault("AMENT_PREFIX_PATH", str(ROOT / ".venv-ros"))
    for stream, t in (("4k", "sensor_msgs/msg/Image"), ("64b", "std_msgs/msg/UInt8MultiArray")):
        (where / f"{stream}.msgdef").write_text(ros2_definition(t))


def sigint_reaches_recorders() -> None:
    """Every recorder here is stopped with SIGINT, as a user stops one with Ctrl-C. A child
    inherits an ignored SIGINT (exec resets only handled signals), and a harness started with `&`
    or nohup has it ignored: rosbag record then failed in its own handler (`'Handlers' object is
    not callable`) and a recorder that keeps the ignore ran on until its timeout. Handling SIGINT
    here (Python's default, as in a terminal) hands each recorder the default disposition."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def run_one(
    system: str, comp: str, stream: str, dest: str, seconds: float, work: Path, depth: int
) -> Run:
    sigint_reaches_recorders()
    rate, _size = STREAMS[stream]
    r = Run(system, stream, dest, comp, seconds, depth)
    base = Path("/dev/shm") if dest == "shm" else ROOT / "out/bench"
    folder = base / f"bag-bench-{os.getpid()}-{system}-{stream}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    topic = f"/bagbench_{os.getpid()}_{stream}"
    env = {"BATON_NAMESPACE": f"bagbench{os.getpid()}"}
    daemon = None
    procs: list[subprocess.Popen] = []
    try:
        if system == "rosbag":
            daemon = start_daemon("ros1-rospy", env)
            rec_env, pub = _ros1_env(env), ["/usr/bin/python3", str(ROLES), "pub", "--system"]
            pub += ["rospy"]
        elif system == "rclpy":
            rec_env, pub = _ros2_env(env), [str(ROS_PY), str(ROLES), "pub", "--system", "rclpy"]
        else:
            rec_env, pub = _baton_env(env), [str(VENV_PY), str(ROLES), "pub", "--system", "baton"]
        pub += ["--stream", stream, "--topic", topic, "--rate", str(rate)]
        pub += ["--count", str(int(rate * seconds)), "--depth", str(depth)]
        rec = subprocess.Popen(
            recorder_cmd(system, comp, stream, topic, folder),
            env=rec_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=work,
            start_new_session=True,  # SIGINT to the group: rosbag's C++ `record` child too
        )
        procs.append(rec)
        reaper = Reaper(folder)
        p = subprocess.Popen(
            pub, env=rec_env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=work
        )
        procs.append(p)
        line = p.stdout.readline().split()  # "start <ns>" once the recorder has matched
        if not line or line[0] != "start":
            rec.kill()
            err = rec.communicate()[1].strip()[-400:]
            raise ExperimentFailed(f"publisher did not start: {line}; recorder: {err}")
        cpu0, t0 = cpu_seconds(tree(rec.pid)), time.monotonic()
        peak = Peak(rec.pid)
        done = p.stdout.readline().split()  # "done <published> <ns>"
        r.published = int(done[1])
        # The recorder has written everything when its files stop growing for 2 s; the
        # publisher stays until then (its exit could take unread messages with it).
        last, still = -1, 0.0
        while still < 2.0 and time.monotonic() - t0 < seconds * 3 + 30:
            time.sleep(0.25)
            now = reaper.written()
            still = still + 0.25 if now == last else 0.0
            last = now
        cpu = cpu_seconds(tree(rec.pid)) - cpu0
        peak.stop()
        p.stdin.close()
        p.wait(timeout=30)
        os.killpg(rec.pid, signal.SIGINT)
        out, err = rec.communicate(timeout=120)
        reaper.finish()
        r.recorded = reaper.count
        r.lost = r.published - r.recorded
        r.cpu_pct = 100.0 * cpu / seconds
        r.cpu_ms_per_msg = round(1000.0 * cpu / max(1, r.recorded), 3)
        r.mb_s = reaper.bytes / seconds / 1e6
        r.rss_peak_mb, r.anon_peak_mb = round(peak.rss, 1), round(peak.anon, 1)
        if system == "baton":
            stats = json.loads(out)
            r.lost_reported = stats["lost"]
            r.notes.append({"recorder": stats["topics"]})
        if rec.returncode not in (0, -signal.SIGINT):
            r.error = f"recorder exit {rec.returncode}: {err.strip()[-300:]}"
    except Exception as e:  # one failed case is reported, the run goes on
        r.error = f"{type(e).__name__}: {e}"
    finally:
        for q in procs:
            if q.poll() is None:
                q.kill()
                q.wait()
        if procs:
            try:
                os.killpg(procs[0].pid, signal.SIGKILL)  # what is left of the recorder's group
            except ProcessLookupError:
                pass
        if daemon is not None:
            daemon.terminate()
            daemon.wait()
        shutil.rmtree(folder, ignore_errors=True)
        clean(env)
    return r


def clean(env: dict) -> None:
    """Removes what a killed baton process left in its namespace (the run's own)."""
    subprocess.run(
        [str(VENV_PY), "-m", "baton", "clean"], env=_baton_env(env), capture_output=True, timeout=60
    )


def play_check(stream: str, seconds: float, work: Path) -> dict:
    """Records a baton bag of `stream` (4K at 30 Hz or 64 B at 1 kHz, NDArray topics; no chunks,
    /dev/shm), plays it to a subscriber, and compares the subscriber's rate with the bag's own
    and with the stream's, and each played gap with the recorded one. The recorder takes a
    1 kHz stream in batches: its log times are the publisher's stamps, so the recorded gaps are
    the published ones (before those stamps they were the batches' bunches)."""
    rate, _size = STREAMS[stream]
    env = _baton_env({"BATON_NAMESPACE": f"bagplay{os.getpid()}"})
    folder = Path("/dev/shm") / f"bag-play-{os.getpid()}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    bag = folder / "p.mcap"
    topic, count = f"/bagplay_{stream}", int(rate * seconds)
    try:
        rec = subprocess.Popen(
            [str(VENV_PY), "-m", "baton", "bag", "record", topic, "-o", str(bag), "--no-chunks"],
            env=env,
            stdout=subprocess.DEVNULL,
            cwd=work,
        )
        pub = [str(VENV_PY), str(ROLES), "pub", "--system", "baton", "--stream", stream]
        p = subprocess.Popen(
            pub + ["--topic", topic, "--count", str(count), "--rate", str(rate)],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        while p.stdout.readline().split()[:1] != ["done"]:
            pass
        subprocess.run([str(VENV_PY), "-c", _WAIT_FOR_COUNT, str(bag)], env=env, timeout=60)
        p.stdin.close()
        p.wait(timeout=30)
        rec.send_signal(signal.SIGINT)
        rec.wait(timeout=60)
        from baton.bag import Reader

        messages = list(Reader(bag).messages())
        times = [m.log_time for m in messages]
        # The original timing: each message's NDArray header stamp, written by the publisher at
        # publish and untouched by the recorder (the bag's publish time). Log times are the
        # publisher's source stamps, taken a few hundred ns later; before those stamps they were
        # the recorder's take times, up to its 15 ms batch linger later.
        published = [m.publish_time for m in messages]
        lag = sorted((lt - pt) / 1e6 for lt, pt in zip(times, published))
        out: dict = {
            "frames_recorded": len(times),
            "bag_hz": round(fitted_hz(times), 3),
            "log_time_after_publish_ms_median": round(lag[len(lag) // 2], 4) if lag else None,
            "log_time_after_publish_ms_max": round(lag[-1], 4) if lag else None,
        }
        # Played twice, in turns: time-shared, then the player's loop and the subscriber's
        # thread in SCHED_FIFO (--realtime-priority; skipped where the system refuses it).
        for label, prio in (("", None), ("realtime_", REALTIME_PRIORITY)):
            got = play_once(bag, topic, len(times), seconds, env, prio)  # what the bag holds
            if "error" in got:
                out[label + "error"] = got["error"]
                continue
            played_hz = fitted_hz(got["t"])
            out.update({
                label + "frames_received": len(got["t"]),
                label + "played_hz": round(played_hz, 3),
                label + "played_hz_first_to_last": round(span_hz(got["t"]), 3),
                label + "error_vs_bag_pct": round(100 * (played_hz / out["bag_hz"] - 1), 3),
                label + "error_vs_stream_pct": round(100 * (played_hz / rate - 1), 3),
                **{
                    label + k: v
                    for k, v in inter_arrival_error(times, got["t"], 1000 / rate).items()
                },
                **{
                    label + k + "_vs_published": v
                    for k, v in inter_arrival_error(published, got["t"], 1000 / rate).items()
                    if k in ("inter_arrival_error_ms_median", "inter_arrival_error_ms_max",
                             "inter_arrival_within_1ms_pct")
                },
            })  # fmt: skip
        return out
    except Exception as e:
        return {"error": f"{type(e).__name__}: {e}"}
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        clean(env)


REALTIME_PRIORITY = 10
BUNCHED_MS = 5.0  # at most; half the stream's period where that is less (1 kHz: 0.5 ms)


def play_once(
    bag: Path, topic: str, count: int, seconds: float, env: dict, prio: int | None
) -> dict:
    """`baton bag play` of `bag` to a subscriber process; {"t": receive times} or {"error"}."""
    sub = subprocess.Popen(
        [str(VENV_PY), "-c", _SUBSCRIBE, topic, str(count), str(prio or 0)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    if sub.stdout.readline().strip() != "ready":
        return {"error": "subscriber: " + sub.communicate(timeout=30)[1].strip()[-300:]}
    rt = [] if prio is None else ["--realtime-priority", str(prio)]
    r = subprocess.run(
        [str(VENV_PY), "-m", "baton", "bag", "play", str(bag), "--format", "json", *rt],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=seconds * 3 + 30,
    )
    if r.returncode != 0:
        sub.kill()
        sub.wait()
        return {"error": f"play exited {r.returncode}: {r.stderr.strip()[-300:]}"}
    return json.loads(sub.communicate(timeout=30)[0])


def fitted_hz(t_ns: list[int]) -> float:
    """The rate of a stream: 1 / the least-squares slope of arrival time over message index
    (one late first or last message does not skew it as first-to-last does)."""
    n = len(t_ns)
    if n < 2:
        return 0.0
    mx, my = (n - 1) / 2, sum(t_ns) / n
    slope = sum((i - mx) * (t - my) for i, t in enumerate(t_ns)) / sum(
        (i - mx) ** 2 for i in range(n)
    )
    return 1e9 / slope


def inter_arrival_error(recorded_ns: list[int], received_ns: list[int], period_ms: float) -> dict:
    """How far each played gap (receipt i-1 -> i) is from the recorded one (log time i-1 -> i):
    issue 21's "inter-arrival timing within 1 ms of the original", measured here rather than
    asserted in a unit test (no timing bounds there). Needs every frame received, in order."""
    if len(received_ns) != len(recorded_ns) or len(received_ns) < 2:
        return {"inter_arrival": "not compared: frames lost"}
    pairs = [
        (
            (recorded_ns[i] - recorded_ns[i - 1]) / 1e6,
            abs((received_ns[i] - received_ns[i - 1]) - (recorded_ns[i] - recorded_ns[i - 1]))
            / 1e6,
        )
        for i in range(1, len(received_ns))
    ]
    err = sorted(e for _, e in pairs)
    # Frames logged < 5 ms (or half a period) apart, which play cannot reproduce (each 4K frame
    # takes a few ms to read and copy into its loan), and the gap after them, which then starts
    # late: a late publisher's catch-up (log times are its stamps; before them, a starved
    # recorder's backlog taken at once). Counted apart, so play's own error shows.
    bunched_ms = min(BUNCHED_MS, period_ms / 2)
    bunched = {i for i, (gap, _) in enumerate(pairs) if gap < bunched_ms}
    bunched |= {i + 1 for i in bunched if i + 1 < len(pairs)}
    rest = [e for i, (_, e) in enumerate(pairs) if i not in bunched]
    return {
        "inter_arrival_error_ms_median": round(err[len(err) // 2], 3),
        "inter_arrival_error_ms_p99": round(err[min(len(err) - 1, int(0.99 * len(err)))], 3),
        "inter_arrival_error_ms_max": round(err[-1], 3),
        "inter_arrival_within_1ms_pct": round(100 * sum(e <= 1.0 for e in err) / len(err), 1),
        "gaps_bunched": len(bunched),
        "inter_arrival_within_1ms_pct_other_gaps": (
            round(100 * sum(e <= 1.0 for e in rest) / len(rest), 1) if rest else None
        ),
        "inter_arrival_error_ms_max_other_gaps": round(max(rest), 3) if rest else None,
    }


def span_hz(t_ns: list[int]) -> float:
    return (len(t_ns) - 1) / ((t_ns[-1] - t_ns[0]) / 1e9) if len(t_ns) > 1 else 0.0


_WAIT_FOR_COUNT = """
import sys, time
from pathlib import Path
p = Path(sys.argv[1])
# the recorder is done when the bag stops growing (it writes each frame as it comes)
last, still = -1, 0
while still < 8:
    time.sleep(0.25); s = p.stat().st_size; still = still + 1 if s == last else 0; last = s
"""

_SUBSCRIBE = """
import json, sys, time, baton, numpy as np
from baton.realtime import realtime_thread
topic, n, prio = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) or None
ctx = baton.Context.create(janitor_period=0.0)
node = baton.Node(ctx, "bag_play_sub")
sub = node.subscription(topic, np.uint8).qos(baton.QoS(100)).create()
t = []
with realtime_thread(prio):  # the thread that takes and timestamps
    print("ready", flush=True)
    while len(t) < n:
        s = sub.take(timeout=30.0)
        if s is None:
            break
        t.append(time.time_ns()); s.release()
print(json.dumps({"t": t}))
"""


# -- report ---------------------------------------------------------------------------------------


def markdown(runs: list[Run], play: dict[str, dict]) -> str:
    cols = ["stream", "to", "recorder", "compression", "published", "lost", "CPU %"]
    cols += ["CPU ms/msg", "MB/s"]
    head = "| " + " | ".join(cols + ["RSS MB (anon)"]) + " |"
    lines = [head, "|" + "---|" * (len(cols) + 1)]
    for r in runs:
        lost = f"{r.lost}" + (f" (reported {r.lost_reported})" if r.lost_reported else "")
        if r.error:
            lines.append(
                f"| {r.stream} | {r.dest} | {r.system} | {r.compression} | {r.error[:80]} ||||||"
            )
            continue
        lines.append(
            f"| {r.stream} | {r.dest} | {r.system} | {r.compression} | {r.published} | {lost} "
            f"| {r.cpu_pct:.1f} | {r.cpu_ms_per_msg:.2f} | {r.mb_s:.1f} "
            f"| {r.rss_peak_mb:.0f} ({r.anon_peak_mb:.0f}) |"
        )
    for stream, p in play.items():
        lines.append("")
        lines.append(f"Play of a baton {stream} bag: {json.dumps(p)}")
    return "\n".join(lines)


def ratios(runs: list[Run]) -> list[dict]:
    """baton's CPU per recorded message over the best reference's, per stream, destination and
    compression off/on (per message: a recorder that loses most messages also spends little)."""
    out = []
    for stream in STREAMS:
        for dest in ("shm", "disk"):
            for on in (False, True):
                same = [
                    r
                    for r in runs
                    if r.stream == stream
                    and r.dest == dest
                    and not r.error
                    and r.compression.startswith("off") != on
                ]
                b = [r for r in same if r.system == "baton"]
                ref = [r for r in same if r.system != "baton"]
                if b and ref:
                    best_b = min(b, key=lambda r: r.cpu_ms_per_msg)
                    best_r = min(ref, key=lambda r: r.cpu_ms_per_msg)
                    out.append(
                        {
                            "stream": stream,
                            "dest": dest,
                            "compression": "on" if on else "off",
                            "baton": f"{best_b.system} {best_b.compression}",
                            "baton_cpu_ms_per_msg": best_b.cpu_ms_per_msg,
                            "baton_cpu_pct": round(best_b.cpu_pct, 1),
                            "best_reference": f"{best_r.system} {best_r.compression}",
                            "reference_cpu_ms_per_msg": best_r.cpu_ms_per_msg,
                            "reference_cpu_pct": round(best_r.cpu_pct, 1),
                            "ratio_per_msg": round(best_b.cpu_ms_per_msg / best_r.cpu_ms_per_msg, 3)
                            if best_r.cpu_ms_per_msg
                            else None,
                        }
                    )
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--seconds", type=float, default=20.0, help="stream duration per run")
    ap.add_argument("--quick", action="store_true", help="4 s runs, /dev/shm, compression off")
    ap.add_argument("--only", help="systems, comma-separated (baton,rosbag,rclpy)")
    ap.add_argument(
        "--cases",
        help="system:compression cells instead of the default ones, comma-separated; baton's "
        "compression may name a level: 'baton:zstd 1,baton:lz4 -16,rosbag:lz4,rclpy:zstd'",
    )
    ap.add_argument("--streams", default="4k,64b")
    ap.add_argument("--depth", type=int, default=10, help="every publisher's queue / QoS depth")
    ap.add_argument("--dests", default="shm,disk")
    ap.add_argument("--no-play", action="store_true")
    ap.add_argument("--play-only", action="store_true", help="only the play-rate check")
    ap.add_argument(
        "--json", help="output (default out/bench/bag.json; with --play-only bag-play.json)"
    )
    ap.add_argument("--markdown", action="store_true", help="print the BENCHMARKS.md table")
    a = ap.parse_args()
    # SIGTERM unwinds like Ctrl-C, so each run's finally stops its processes and files
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    seconds, dests = a.seconds, a.dests.split(",")
    cases = [tuple(c.split(":", 1)) for c in a.cases.split(",")] if a.cases else CASES
    if a.quick:
        seconds, dests = 4.0, ["shm"]
        cases = [c for c in CASES if c[1].startswith("off") and c[1] != "off (chunks)"]
    if a.only:
        cases = [c for c in cases if c[0] in a.only.split(",")]
    if a.play_only:
        cases = []
    work = ROOT / "out/bench"
    work.mkdir(parents=True, exist_ok=True)
    write_schemas(work)
    if not (work / "bag-4k.rgb").exists():
        sys.path.insert(0, str(ROLES.parent))
        import roles

        roles.make_picture(work / "bag-4k.rgb")
    runs = []
    for stream in a.streams.split(","):
        for dest in dests:
            for system, comp in cases:
                r = run_one(system, comp, stream, dest, seconds, work, a.depth)
                print(json.dumps(asdict(r)), flush=True)
                runs.append(r)
    play = {
        stream: play_check(stream, min(seconds, 5.0), work)
        for stream in ([] if a.no_play else a.streams.split(","))
    }
    for stream, p in play.items():
        print(json.dumps({"play": {stream: p}}), flush=True)
    result = {
        "machine": {**machine(), "loadavg_end": os.getloadavg()},
        "note": "loaded machine: 2 cores shared with other engineers; compare ratios only",
        "seconds": seconds,
        "runs": [asdict(r) for r in runs],
        "cpu_ratios": ratios(runs),
        "play": play,
    }
    out = Path(a.json or ROOT / "out/bench" / ("bag-play.json" if a.play_only else "bag.json"))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1))
    if a.markdown:
        print(markdown(runs, play))
    return (
        0 if all(not r.error for r in runs) and all("error" not in p for p in play.values()) else 1
    )


if __name__ == "__main__":
    sys.exit(main())
