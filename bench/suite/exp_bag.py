"""Issue 21's recorder cell, short: `baton bag record` beside ROS 1 `rosbag record` and an rclpy +
mcap recorder on Fast DDS, on the same streams (a 4K rgb8 camera at 30 Hz, 64 B at 1 kHz), to
/dev/shm, uncompressed. Each run is bench/bag/run.py's (`run_one`): one publisher process, one
recorder process tree, messages counted in the files afterwards. The long version, with the disk,
compression and play, is `bench/bag/run.py` (BENCHMARKS.md "Bag recording")."""

from __future__ import annotations

import sys
from pathlib import Path

from bench.bag import run as bag

from .common import Context, ExperimentFailed, Result, Task, md_table

NAME = "bag"
FIGURE = "cpu_ms_per_msg"  # the recorder's CPU per message it recorded (fair when losses differ)


def _prepare() -> Path:
    """The folder bench/bag/run.py records from: message definitions and the 4K picture."""
    work = bag.ROOT / "out/bench"
    work.mkdir(parents=True, exist_ok=True)
    bag.write_schemas(work)
    if not (work / "bag-4k.rgb").exists():
        sys.path.insert(0, str(bag.ROLES.parent))
        import roles

        roles.make_picture(work / "bag-4k.rgb")
    return work


def _run(system: str, compression: str, stream: str, p: dict) -> list[Result]:
    r = bag.run_one(system, compression, stream, "shm", p["seconds"], _prepare(), p["depth"])
    if r.error:
        raise ExperimentFailed(f"{system} {stream}: {r.error}")
    extra = {k: getattr(r, k) for k in ("published", "recorded", "lost", "cpu_pct", "mb_s")}
    extra |= {"rss_peak_mb": r.rss_peak_mb, "compression": r.compression}
    size = bag.STREAMS[stream][1]
    return [Result(NAME, system, stream, size, [r.cpu_ms_per_msg], "ms", extra)]


def tasks(ctx: Context) -> list[Task]:
    p = ctx.params[NAME]
    return [
        Task(
            NAME,
            f"bag record {system} {stream}",
            lambda c, s=system, m=comp, z=stream: _run(s, m, z, p),
            weight=p["seconds"] + 4,
        )
        for stream in p["streams"]
        for system, comp in p["cases"]
    ]


def report(ctx: Context, summaries: list[dict], plots: Path) -> tuple[str, str]:
    p = ctx.params[NAME]
    rows, ratios = [], []
    for stream in p["streams"]:
        cells = [s for s in summaries if s["configuration"] == stream and s["samples"]]
        for s in cells:
            rows.append(
                [
                    stream,
                    s["system"],
                    s["compression"],
                    s["published"],
                    s["lost"],
                    f"{s['median']:.3f}",
                    f"{s['cpu_pct']:.0f}",
                    f"{s['mb_s']:.1f}",
                    f"{s['rss_peak_mb']:.0f}",
                ]
            )
        baton = [s["median"] for s in cells if s["system"] == "baton"]
        refs = [s["median"] for s in cells if s["system"] != "baton"]
        if baton and refs and min(refs) > 0:
            ratios.append(f"{stream} {min(baton) / min(refs):.2f}")
    head = ["stream", "recorder", "compression", "published", "lost", "CPU ms/msg", "CPU %"]
    md = [
        "## Bag recording, short (issue 21)",
        "",
        f"{p['seconds']:.0f} s per run to /dev/shm, uncompressed, publisher queue {p['depth']}; "
        "CPU = the recorder's process tree per message it recorded. Issue 21's targets: 0 lost at "
        "4K 30 Hz, recorder CPU ≤ 1/3 of the best reference. The long version: "
        "`bench/bag/run.py`.",
        "",
        md_table(head + ["MB/s", "RSS MB"], rows),
        "",
        "baton's CPU per message ÷ the best reference's: " + (", ".join(ratios) or "n/a"),
        "",
    ]
    short = [
        f"  {r[0]:<4} {r[1]:<7} lost {r[4]:>4} of {r[3]:>5}, {r[5]} ms CPU per message"
        for r in rows
    ]
    short.append("  baton ÷ best reference (CPU per message): " + (", ".join(ratios) or "n/a"))
    return "\n".join(md), "\n".join(short)
