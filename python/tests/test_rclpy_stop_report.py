"""bench/suite/exp_rclpy_stop.py's report without running anything: every node within 1 s is the
target; a hung or a slow node misses it, and a cell that did not run reads "failed"."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.suite import exp_rclpy_stop as rs  # noqa: E402
from bench.suite.common import Context, Result  # noqa: E402
from bench.suite.params import PARAMS  # noqa: E402


def _result(system: str, conf: str, ms: list[float], hung: int = 0) -> Result:
    counts = {"hung": hung, "nonzero_exit": 0, "no_stopped_line": 0}
    return Result(rs.NAME, system, conf, 0, ms, "ms", extra=counts)


def test_report_meets_the_target_only_when_every_node_stops_within_1_s(tmp_path):
    ctx = Context("quick", 1, ROOT / "build", tmp_path, PARAMS["quick"])
    tries = ctx.params[rs.NAME]["tries"]
    ctx.results = [
        _result("baton", "service SIGTERM", [60.0] * tries),
        _result("fastdds", "service SIGTERM", [150.0] * (tries - 1), hung=1),
        _result("baton", "service SIGINT", [60.0] * (tries - 1), hung=1),
        _result("baton", "subscription SIGTERM", [60.0] * (tries - 1) + [1200.0]),
    ]
    md, short = rs.report(ctx, [], tmp_path)
    lines = dict(line.split(": baton ", 1) for line in short.splitlines())
    assert lines["service SIGTERM"].startswith("ok")
    assert lines["service SIGINT"].startswith("MISS") and "1 hung" in lines["service SIGINT"]
    assert lines["subscription SIGTERM"].startswith("MISS")
    assert f"{tries - 1}/{tries} ≤ 1 s" in lines["subscription SIGTERM"]
    assert lines["subscription SIGINT"].startswith("MISS (failed)")  # never ran
    assert f"150 / 150 / 150 · {tries - 1}/{tries} ≤ 1 s · 1 hung" in md  # Fast DDS beside it
