"""bench/suite/exp_rcl_pingpong.py without running anything: the environment a C++ rcl process
gets (wheels' libraries, libpython preloaded, the RMW), and the report's ratio against Fast DDS
with the 0.2x target at 4 MiB and 4K, failed cells shown as such."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.suite import exp_rcl_pingpong as rp  # noqa: E402
from bench.suite.common import Context, Result  # noqa: E402
from bench.suite.params import PARAMS  # noqa: E402


def _ctx(tmp: Path) -> Context:
    return Context("quick", 1, ROOT / "build", tmp, PARAMS["quick"])


def _result(system: str, size: str, median: float) -> Result:
    return Result(rp.NAME, system, rp.SYSTEMS[system], rp.SIZES[size], [median] * 5, "us")


def test_baton_env_preloads_libpython_then_the_rmw(tmp_path):
    env = rp.rcl_env("baton", 63, "ns", tmp_path)
    preload = env["LD_PRELOAD"].split()
    assert "libpython" in preload[0] and preload[1].endswith("librmw_baton_cpp.so")
    assert env["RMW_IMPLEMENTATION"] == "rmw_baton_cpp"
    # The fixed-size bench messages' libraries (built under the build folder) first, then the
    # wheels'.
    libs = env["LD_LIBRARY_PATH"].split(":")
    assert libs[:2] == [str(tmp_path / "ros2_msgs" / "lib"), str(ROOT / ".venv-ros" / "lib")]
    assert env["ROS_DOMAIN_ID"] == "63" and env["BATON_NAMESPACE"] == "ns"


def test_fastdds_udp_env_restricts_fast_dds_to_udp(tmp_path):
    env = rp.rcl_env("fastdds-udp", 63, "ns", tmp_path)
    assert env["RMW_IMPLEMENTATION"] == "rmw_fastrtps_cpp"
    assert env["FASTDDS_BUILTIN_TRANSPORTS"] == "UDPv4"
    assert "librmw_baton_cpp" not in env["LD_PRELOAD"]
    assert "FASTDDS_BUILTIN_TRANSPORTS" not in rp.rcl_env("fastdds", 63, "ns", tmp_path)


def test_report_marks_the_target_at_4m_and_4k_and_failed_cells(tmp_path):
    ctx = _ctx(tmp_path)
    ctx.results = [
        _result("fastdds", "64", 50.0),
        _result("baton", "64", 20.0),
        _result("fastdds", "4m", 1000.0),
        _result("baton", "4m", 100.0),
        _result("fastdds", "4k", 1000.0),
        _result("baton", "4k", 300.0),
    ]
    md, short = rp.report(ctx, [], tmp_path)
    assert "64: baton/fastdds 0.40" in short  # no target at 64 B
    assert "4m: baton/fastdds 0.10 ok" in short
    assert "4k: baton/fastdds 0.30 MISS" in short
    assert "64k: baton/fastdds -" in short  # nothing measured
    row_64k = next(line for line in md.splitlines() if line.startswith("| 64k |"))
    assert row_64k.count("failed") == 2 * len(rp.SYSTEMS)  # median / p99 of every row
