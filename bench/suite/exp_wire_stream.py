"""Issue 17: the wire stream benchmark. sensor_msgs/msg/Image streams at a fixed rate between
two processes on different RMWs over DDS (loopback, one host), in four directions:

    Fast DDS -> Fast DDS            rclpy talker and listener on rmw_fastrtps_cpp (the reference)
    rmw_baton_cpp -> Fast DDS       rclpy talker on rmw_baton_cpp, rclpy listener on Fast DDS
    Fast DDS -> rmw_baton_cpp       rclpy talker on Fast DDS, rclpy listener on rmw_baton_cpp
    Ros2Publisher -> Fast DDS       C++ Ros2Publisher (baton-bench-ros2-wire-talker), rclpy
                                    listener on Fast DDS

Per cell (image, rate, QoS, direction): the listener starts first; the talker waits until its
publisher has matched a subscription, publishes seq 0 at once and then one image per 1 / rate
for `seconds`; the listener checks every image byte for byte against the expected frame of its
seq (bench/ros2/wire_stream_peer.py) and measures latency = its wall clock - header.stamp (the
talker stamps just before publish; same host, same clock). After the last publish the listener
gets `drain_s` to receive what is still in flight, then both are stopped; a peer that does not
stop is killed and the cell is reported failed with the reason (its records up to then count).

Reported per cell: sent, delivered (distinct seqs), verified (bytes equal), whether seq 0 arrived,
latency median / p99 (ms), and for the baton directions the ratios to the reference in the same
cell: delivered ratio and median latency ratio, with the targets missed.

    .venv/bin/python bench/suite/run.py --only wire_stream                 # quick: ~1.5 min
    .venv/bin/python bench/suite/run.py --suite all --only wire_stream     # all: ~28 min
    .venv/bin/python -m bench.suite.exp_wire_stream --direction baton-fastdds --size 4k \\
        --rate 10 --qos reliable --seconds 5                               # one cell
"""

from __future__ import annotations

import argparse
import itertools
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from .common import (
    ROOT,
    Context,
    ExperimentFailed,
    Failure,
    Result,
    Task,
    md_table,
    stats,
)

NAME = "wire_stream"
PEER = ROOT / "bench/ros2/wire_stream_peer.py"
PYTHON = ROOT / ".venv-ros/bin/python"
NATIVE = "bench/ros2/baton-bench-ros2-wire-talker"  # under the build directory

# Images: name -> (height, width, encoding, bytes per pixel), as wire_stream_peer.SHAPES.
IMAGES = {
    "4k": (2160, 3840, "rgb8", 3),
    "1m": (1024, 1024, "mono8", 1),
    "64k": (256, 256, "mono8", 1),
}


@dataclass(frozen=True)
class Direction:
    key: str  # params / --direction
    label: str  # the report's and the JSON's "system"
    talker: str  # "fastdds" | "baton" (rclpy on that RMW) | "native" (C++ Ros2Publisher)
    listener: str  # "fastdds" | "baton" (rclpy)


DIRECTIONS = {
    d.key: d
    for d in [
        Direction("fastdds-fastdds", "Fast DDS -> Fast DDS", "fastdds", "fastdds"),
        Direction("baton-fastdds", "rmw_baton_cpp -> Fast DDS", "baton", "fastdds"),
        Direction("fastdds-baton", "Fast DDS -> rmw_baton_cpp", "fastdds", "baton"),
        Direction("native-fastdds", "Ros2Publisher -> Fast DDS", "native", "fastdds"),
    ]
}
REFERENCE = "fastdds-fastdds"
STOP_GRACE_S = 10.0  # a peer gets this long to exit after the stop file appears
_cells = itertools.count(1)


def image_bytes(size: str) -> int:
    h, w, _, c = IMAGES[size]
    return h * w * c


def image_label(size: str) -> str:
    h, w, enc, _ = IMAGES[size]
    return f"{w}x{h} {enc}"


def rmem() -> dict[str, int | None]:
    """net.core.rmem_default / rmem_max: Fast DDS's UDP reader sockets get rmem_default, which
    caps what a non-Fast-DDS writer (CycloneDDS: baton) can push to them."""
    out: dict[str, int | None] = {}
    for k in ("rmem_default", "rmem_max"):
        try:
            out[k] = int(Path(f"/proc/sys/net/core/{k}").read_text())
        except (OSError, ValueError):
            out[k] = None
    return out


def rmw_env(side: str, domain: int, namespace: str, build: Path) -> dict:
    """The environment of a ROS 2 process on `side` ("baton": rmw_baton_cpp preloaded, "fastdds":
    rmw_fastrtps_cpp): its own domain id, LOCALHOST discovery, its own baton namespace."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.pop("LD_PRELOAD", None)
    env.update(ROS_DOMAIN_ID=str(domain), ROS_AUTOMATIC_DISCOVERY_RANGE="LOCALHOST")
    env["BATON_NAMESPACE"] = namespace
    if side == "baton":
        env["LD_PRELOAD"] = str(build / "src/ros2/rmw/librmw_baton_cpp.so")
        env["RMW_IMPLEMENTATION"] = "rmw_baton_cpp"
    elif side == "fastdds":
        env["RMW_IMPLEMENTATION"] = "rmw_fastrtps_cpp"
    return env


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text(errors="replace").splitlines()
    except OSError:
        return []


def _line(path: Path, prefix: str) -> str | None:
    return next((ln for ln in _lines(path) if ln.startswith(prefix)), None)


def _tail(path: Path) -> str:
    lines = [ln for ln in _lines(path) if ln.strip()]
    return lines[-1][:200] if lines else "no output"


def _cpu_percent(pid: int, over_s: float = 1.0) -> float | None:
    """CPU use of `pid` over `over_s` seconds (100 = one core), None if it is gone."""

    def ticks() -> int:
        f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(f[11]) + int(f[12])  # utime + stime

    try:
        a = ticks()
        time.sleep(over_s)
        return 100.0 * (ticks() - a) / os.sysconf("SC_CLK_TCK") / over_s
    except (OSError, IndexError, ValueError):
        return None


def _wait(p: subprocess.Popen, seconds: float) -> bool:
    try:
        p.wait(timeout=max(0.0, seconds))
        return True
    except subprocess.TimeoutExpired:
        return False


def _stop(p: subprocess.Popen, what: str, grace: float) -> str | None:
    """Waits up to `grace` s for `p` (already told to stop) to exit; kills it otherwise and says
    why (with its CPU use: a Fast DDS take spinning shows as ~100 %)."""
    if _wait(p, grace):
        return None
    cpu = _cpu_percent(p.pid)
    p.kill()
    p.wait()
    busy = f", {cpu:.0f} % CPU" if cpu is not None else ""
    return f"{what} did not exit within {grace:.0f} s of the stop{busy}: killed"


def _until(cond, p: subprocess.Popen, seconds: float) -> bool:
    """Polls `cond` until it holds (True), `p` exits or `seconds` pass (False)."""
    deadline = time.monotonic() + seconds
    while not cond():
        if p.poll() is not None or time.monotonic() > deadline:
            return cond()
        time.sleep(0.05)
    return True


def run_cell(
    build: Path,
    direction: str,
    size: str,
    rate: float,
    qos: str,
    seconds: float,
    domain: int = 61,
    drain_s: float = 5.0,
    match_timeout_s: float = 30.0,
) -> tuple[Result, list[str]]:
    """One cell: its Result (latencies in ms, figures in `extra`) and its problems (reasons the
    cell counts as failed; empty when it ran as planned)."""
    d = DIRECTIONS[direction]
    if not PYTHON.exists():
        raise ExperimentFailed(".venv-ros missing: run scripts/install-ros-wheels.sh")
    count = max(1, round(rate * seconds))
    run_id = f"ws{os.getpid()}x{next(_cells)}"
    tmp = Path(tempfile.mkdtemp(prefix=f"baton-{run_id}-"))
    stop, records = tmp / "stop", tmp / "records"
    common = ["--size", size, "--qos", qos, "--topic", f"/wire_stream_{run_id}"]
    common += ["--count", str(count), "--stop-file", str(stop)]
    limit = match_timeout_s + seconds * 3 + drain_s + 60  # no peer may outlive this
    procs: list[subprocess.Popen] = []
    problems: list[str] = []

    def start(argv: list[str], side: str, log: Path, role: str) -> subprocess.Popen:
        env = rmw_env(side, domain, f"{run_id}{role}", build)
        with open(log, "w") as fh:
            p = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=fh, stderr=subprocess.STDOUT)
        procs.append(p)
        return p

    lis_log, tal_log = tmp / "listener.log", tmp / "talker.log"
    try:
        lis = start(
            [str(PYTHON), str(PEER), "listen", *common, "--records", str(records)]
            + ["--max-seconds", str(limit)],
            d.listener,
            lis_log,
            "l",
        )
        if not _until(lambda: _line(lis_log, "ready") is not None, lis, 60):
            raise ExperimentFailed(f"listener did not start: {_tail(lis_log)}")
        if d.talker == "native":
            exe = build / NATIVE
            if not exe.exists():
                raise ExperimentFailed(f"not built: {exe}")
            argv = [str(exe), "--share", str(ROOT / ".venv-ros/share")]
        else:
            argv = [str(PYTHON), str(PEER), "talk"]
        argv += [*common, "--rate", str(rate), "--match-timeout", str(match_timeout_s)]
        tal = start(argv + ["--max-seconds", str(limit)], d.talker, tal_log, "t")
        send_limit = match_timeout_s + seconds * 3 + 30
        if not _until(lambda: _line(tal_log, "sent ") is not None, tal, send_limit):
            why = _tail(tal_log) if tal.poll() is not None else f"not done in {send_limit:.0f} s"
            problems.append(f"talker: {why}")
        else:
            _wait(lis, drain_s)  # it exits by itself once it has every seq
        stop.touch()
        for p, what, log in ((lis, "listener", lis_log), (tal, "talker", tal_log)):
            if (why := _stop(p, what, STOP_GRACE_S)) is not None:
                problems.append(why)
            elif p.returncode != 0 and not (what == "talker" and problems):
                problems.append(f"{what} exit {p.returncode}: {_tail(log)}")
        result = _result(d, size, rate, qos, seconds, count, records, tal_log)
        result.extra["problems"] = problems
        return result, problems
    finally:
        stop.touch()
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        for f in Path("/dev/shm").glob(f"baton.*.{run_id}*"):
            f.unlink(missing_ok=True)
        for f in tmp.iterdir():
            f.unlink(missing_ok=True)
        tmp.rmdir()


def _result(
    d: Direction,
    size: str,
    rate: float,
    qos: str,
    seconds: float,
    count: int,
    records: Path,
    tal_log: Path,
) -> Result:
    latency: dict[int, float] = {}
    ok: set[int] = set()
    duplicates = 0
    for ln in _lines(records):
        parts = ln.split()
        if len(parts) != 3:
            continue  # a line cut short by a kill
        seq, ns, good = int(parts[0]), int(parts[1]), parts[2] == "1"
        if seq in latency:
            duplicates += 1
            continue
        if 0 <= seq < count:
            latency[seq] = ns / 1e6
            if good:
                ok.add(seq)
    sent_line = (_line(tal_log, "sent ") or "").split()
    matched = (_line(tal_log, "matched ") or "").split()
    sent = int(sent_line[1]) - int(sent_line[3]) if len(sent_line) == 4 else 0
    extra = {
        "direction": d.key,
        "image": size,
        "rate_hz": rate,
        "qos": f"{qos} keep-last 10 volatile",
        "seconds": seconds,
        "sent": sent,
        "delivered": len(latency),
        "verified": len(ok),
        "first_delivered": 0 in latency,
        "duplicates": duplicates,
        "publish_errors": int(sent_line[3]) if len(sent_line) == 4 else None,
        "talker_match_s": float(matched[1]) if len(matched) == 2 else None,
        "send_s": float(sent_line[2]) if len(sent_line) == 4 else None,
        "verification": "byte-equal to the expected frame (numpy.array_equal)",
        **rmem(),
    }
    conf = f"{size} {image_label(size)}, {rate:g} Hz, {qos} keep-last 10"
    values = [latency[s] for s in sorted(latency)]
    return Result(NAME, d.label, conf, image_bytes(size), values, "ms", extra)


def tasks(ctx: Context) -> list[Task]:
    p = ctx.params[NAME]
    out = []
    for size, rate, qos in itertools.product(p["sizes"], p["rates"], p["qos"]):
        for direction in p["directions"]:  # the reference first: one cell's runs side by side
            label = f"wire stream {size} {rate:g} Hz {qos} {direction}"

            def fn(c: Context, a=(direction, size, rate, qos), label=label) -> list[Result]:
                r, problems = run_cell(
                    c.build,
                    *a,
                    p["seconds"],
                    p["dds_domain"],
                    p["drain_s"],
                    p["match_timeout_s"],
                )
                for why in problems:
                    c.failures.append(Failure(NAME, label, why))
                return [r]

            out.append(Task(NAME, label, fn, weight=p["seconds"] + 5))
    return out


# ---- report -----------------------------------------------------------------------------------


def _fraction(r: Result) -> float | None:
    s = r.extra["sent"]
    return r.extra["delivered"] / s if s else None


def _median(r: Result) -> float | None:
    return stats(r.values)["median"] if r.values else None


def misses(r: Result, ref: Result | None) -> list[str]:
    """The targets a baton direction's cell misses: delivered/sent >= the reference's; reliable:
    100 % at 1 and 10 Hz and seq 0 delivered; median latency <= 1.2 x the reference's; every
    delivered image byte-equal; the cell ran without problems."""
    out = []
    e = r.extra
    reliable = e["qos"].startswith("reliable")
    frac, ref_frac = _fraction(r), _fraction(ref) if ref else None
    if frac is None:
        out.append("nothing sent")
    elif ref_frac is not None and frac < ref_frac:
        out.append("delivered < ref")
    if reliable and e["rate_hz"] <= 10 and e["delivered"] < max(e["sent"], 1):
        out.append("reliable < 100 %")
    if reliable and not e["first_delivered"]:
        out.append("seq 0 lost")
    med, ref_med = _median(r), _median(ref) if ref else None
    if med is not None and ref_med and med > 1.2 * ref_med:
        out.append("median > 1.2x ref")
    if e["verified"] < e["delivered"]:
        out.append(f"{e['delivered'] - e['verified']} corrupt")
    if e.get("problems"):
        out.append("failed: " + "; ".join(e["problems"]))
    return out


def _ratio(a: float | None, b: float | None, digits: int = 2) -> str:
    return f"{a / b:.{digits}f}" if a is not None and b else "n/a"


def _key(e: dict) -> tuple:
    return (e["image"], e["rate_hz"], e["qos"], e["direction"])


def table(results: list[Result], params: dict) -> tuple[str, list[str], dict[str, int]]:
    """The report table (one row per cell and direction), console lines, and per baton
    direction the number of cells that miss a target."""
    cell = {_key(r.extra): r for r in results}
    rows, short = [], []
    missed = {k: 0 for k in params["directions"] if k != REFERENCE}
    for size, rate, qos in itertools.product(params["sizes"], params["rates"], params["qos"]):
        q = f"{qos} keep-last 10 volatile"
        ref = cell.get((size, rate, q, REFERENCE))
        for key in params["directions"]:
            r = cell.get((size, rate, q, key))
            name = DIRECTIONS[key].label
            head = [size, f"{rate:g}", qos, name]
            if r is None:
                rows.append(head + ["failed (see Failed)"] + [""] * 7)
                if key in missed:
                    missed[key] += 1
                continue
            e, s = r.extra, stats(r.values)
            lat = [f"{s['median']:.1f}", f"{s['p99']:.1f}"] if r.values else ["none", "none"]
            if key == REFERENCE:
                ratios, miss = ["", ""], "reference"
                if e.get("problems"):
                    miss = "reference; failed: " + "; ".join(e["problems"])
            else:
                ratios = [
                    _ratio(_fraction(r), _fraction(ref) if ref else None),
                    _ratio(_median(r), _median(ref) if ref else None),
                ]
                m = misses(r, ref)
                missed[key] += bool(m)
                miss = "**" + ", ".join(m) + "**" if m else "ok"
            rows.append(
                head
                + [
                    f"{e['delivered']}/{e['sent']}",
                    str(e["verified"]),
                    "yes" if e["first_delivered"] else "**no**",
                    *lat,
                    *ratios,
                    miss,
                ]
            )
            short.append(
                f"  {size:>3} {rate:>4g} Hz {qos:<11} {name:<26} {e['delivered']:>4}/{e['sent']:<4}"
                f" seq0 {'yes' if e['first_delivered'] else 'NO '}  median "
                f"{lat[0]:>7} ms  p99 {lat[1]:>7}  {miss.replace('**', '')}"
            )
    header = ["image", "Hz", "QoS", "direction", "delivered/sent", "verified", "seq 0"]
    header += ["median ms", "p99 ms", "delivered ratio", "median ratio", "targets"]
    return md_table(header, rows), short, missed


def report(ctx: Context, summaries: list[dict], plots: Path) -> tuple[str, str]:
    p = ctx.params[NAME]
    res = [r for r in ctx.results if r.experiment == NAME]
    md_tab, short, missed = table(res, p)
    mem = rmem()
    sizes = ", ".join(f"{s} = {image_label(s)} ({image_bytes(s):,} B)" for s in p["sizes"])
    cells = len(p["sizes"]) * len(p["rates"]) * len(p["qos"])
    summary = "; ".join(f"{DIRECTIONS[k].label} {n} of {cells}" for k, n in missed.items())
    md = [
        "## Wire stream: sensor_msgs/Image between RMWs over DDS (issue 17)",
        "",
        f"Images {sizes}; {', '.join(f'{r:g}' for r in p['rates'])} Hz for {p['seconds']:g} s "
        f"per cell; QoS {' and '.join(p['qos'])}, keep last 10, volatile; DDS domain "
        f"{p['dds_domain']}, LOCALHOST discovery. Listener started first; the talker publishes "
        "seq 0 as soon as its publisher has matched a subscription (no settle sleep). Every "
        "delivered image is compared byte for byte with the expected frame of its seq "
        "(`verified`); latency = the listener's wall clock at its callback − header.stamp "
        f"(stamped just before publish), ms. After the last publish the listener gets "
        f"{p['drain_s']:g} s more. Ratios: baton direction / Fast DDS → Fast DDS in the same "
        "cell (delivered fraction; median latency). Targets: delivered/sent ≥ the reference's; "
        "reliable at 1 and 10 Hz 100 %; reliable seq 0 delivered; median ≤ 1.2× the "
        "reference's.",
        "",
        f"Kernel: net.core.rmem_default = {mem['rmem_default']}, rmem_max = {mem['rmem_max']} "
        "(Fast DDS's UDP reader sockets get rmem_default: what a CycloneDDS writer, i.e. "
        "baton, can push to an rclpy Fast DDS listener; Fast DDS → Fast DDS on one host goes "
        "through Fast DDS's shared-memory transport instead).",
        "",
        md_tab,
        "",
        f"Cells missing a target: {summary}.",
        "",
    ]
    return "\n".join(md), "\n".join(short)


def main(argv: list[str] | None = None) -> int:
    """One cell from the command line, printed as its JSON summary."""
    import json

    ap = argparse.ArgumentParser(description="one wire stream cell")
    ap.add_argument("--direction", choices=sorted(DIRECTIONS), required=True)
    ap.add_argument("--size", choices=sorted(IMAGES), default="64k")
    ap.add_argument("--rate", type=float, default=10)
    ap.add_argument("--qos", choices=["reliable", "best-effort"], default="reliable")
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--drain", type=float, default=5)
    ap.add_argument("--domain", type=int, default=61)
    ap.add_argument("--build-dir", default=os.environ.get("BATON_BUILD_DIR", str(ROOT / "build")))
    a = ap.parse_args(argv)
    r, problems = run_cell(
        Path(a.build_dir), a.direction, a.size, a.rate, a.qos, a.seconds, a.domain, a.drain
    )
    print(json.dumps(r.summary()))
    for why in problems:
        print(f"FAILED: {why}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
