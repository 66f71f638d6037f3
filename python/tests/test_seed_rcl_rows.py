"""Seed 000 / seed 002 rows labelled for what they are (issue 22 item 6), without running
anything: every transport the suites run has a label, the rcl rows name their RMW, the stand-ins
say so, the paper's figures sit only beside the rows that correspond to one, the ratio to native
baton is computed, and a missing wheel or program fails the cell with the install hint."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.suite import exp_rcl_pingpong as rp  # noqa: E402
from bench.suite import exp_seed000 as s0  # noqa: E402
from bench.suite import exp_seed002 as s2  # noqa: E402
from bench.suite.common import Context, ExperimentFailed, Result  # noqa: E402
from bench.suite.params import PARAMS  # noqa: E402


@pytest.mark.parametrize("suite", ["quick", "all"])
def test_every_transport_of_the_suites_has_a_label(suite):
    for g in PARAMS[suite][s0.NAME]["groups"]:
        for t in g["transports"]:
            assert t in s0.TRANSPORT_ROW, t
    p2 = PARAMS[suite][s2.NAME]
    for system in [*p2["systems"], *p2["rcl_systems"]]:
        assert system in s2.LABEL, system


def test_labels_say_what_each_row_is():
    row = {t: label for t, (_, label) in s0.TRANSPORT_ROW.items()}
    assert row["rcl-fastrtps-topic"].startswith("ROS-SC: rcl C++ on rmw_fastrtps_cpp")
    assert row["rcl-baton-service"] == "rcl C++ on rmw_baton_cpp"
    assert "stand-in" in row["ros-zc"] and "not rclcpp" in row["ros-zc"]
    assert "not ROS" in row["cyclonedds-topic"] and "not rcl" in row["ros-shm-zc"]
    # Nothing but the rcl rows is called ROS-SC any more.
    assert [t for t, lb in row.items() if "ROS-SC" in lb] == [
        "rcl-fastrtps-topic",
        "rcl-fastrtps-service",
    ]
    assert "not ROS" in s2.LABEL["cyclonedds"] and "rmw_baton_cpp" in s2.LABEL["rcl-baton"]


def _seed000_result(nodes: int, model: str, system: str, ms: float) -> Result:
    extra = {"model": model, "nodes": nodes, "benchmark": "cache"}
    return Result(s0.NAME, system, f"{nodes} nodes cache {model}", 4 << 20, [ms] * 5, "ms", extra)


def test_seed000_report_ratio_to_native_baton_and_paper_only_where_it_corresponds(tmp_path):
    ctx = Context("quick", 1, ROOT / "build", tmp_path, PARAMS["quick"])
    ctx.results = [
        _seed000_result(1, "SC", "native", 8.0),
        _seed000_result(2, "SC", "baton", 10.0),
        _seed000_result(2, "SC", "rcl-baton-topic", 15.0),
        _seed000_result(2, "SC", "rcl-fastrtps-topic", 50.0),
    ]
    md, _ = s0.report(ctx, [r.summary() for r in ctx.results], tmp_path)
    sc = [line for line in md.splitlines() if line.startswith("| 2 nodes | SC |")]

    def row(label: str, kind: str = "Topic") -> str:
        return next(line for line in sc if f"| {kind} | {label} |" in line)

    on_baton = row("rcl C++ on rmw_baton_cpp")
    assert "| 1.50× |" in on_baton and on_baton.endswith("| - | - |")  # no paper row
    fast = row("ROS-SC: rcl C++ on rmw_fastrtps_cpp")
    assert "| 5.00× |" in fast and "(+2640%)" in fast  # the paper's ROS-SC topic row beside it
    assert "| 1 (reference) |" in row("native baton shm topics")
    assert "failed" in row("ROS-SC: rcl C++ on rmw_fastrtps_cpp", "Service")  # not measured


def test_seed000_holds_native_baton_against_the_zero_copy_rows_within_the_interval(tmp_path):
    ctx = Context("quick", 1, ROOT / "build", tmp_path, PARAMS["quick"])

    def cell(system: str, values: list[float]) -> Result:
        extra = {"model": "ZC", "nodes": 2, "benchmark": "cache"}
        return Result(s0.NAME, system, "2 nodes cache ZC", 4 << 20, values, "ms", extra)

    ctx.results = [
        cell("baton", [10.0, 10.2, 9.8, 10.1, 9.9]),
        cell("ros-zc", [12.0, 12.2, 11.8, 12.1, 11.9]),  # baton clearly lower
        cell("ros-shm-zc", [10.1, 9.7, 10.3, 9.9, 10.0]),  # the same within the interval
    ]
    md, _ = s0.report(ctx, [r.summary() for r in ctx.results], tmp_path)
    zc = [line for line in md.splitlines() if line.startswith("| 2 nodes | ZC |")]
    assert any("ROS-ZC stand-in" in line and "| lower: -2.00 [" in line for line in zc)
    assert any("| ROS-SHM-ZC" in line and "| not separable: " in line for line in zc)
    tally = "≤ ROS-ZC stand-in in 1 of 1 cells (1 lower); ≤ ROS-SHM-ZC in 1 of 1 cells (0 lower)"
    assert tally in md

    ctx.results[2] = cell("ros-shm-zc", [8.0, 8.2, 7.8, 8.1, 7.9])  # baton higher
    md, _ = s0.report(ctx, [r.summary() for r in ctx.results], tmp_path)
    assert "| higher: +2.00 [" in md and "≤ ROS-SHM-ZC in 0 of 1 cells" in md


def test_seed000_measures_the_zero_copy_cells_of_an_architecture_in_turns():
    cells = [("cache", 2, "ZC", t) for t in ("ros-zc", "ros-shm-zc", "baton", "rcl-fastrtps-topic")]
    cells.append(("cache", 3, "ZC", "ros-shm-zc"))  # no native baton cell to turn with
    assert s0._turn_groups(cells, 30) == {("cache", 2, "ZC"): ["ros-zc", "ros-shm-zc", "baton"]}
    assert s0._turn_groups(cells, 5) == {}  # too few steps for two rounds


def test_a_missing_wheel_or_program_fails_the_cell_with_the_install_hint(tmp_path, monkeypatch):
    monkeypatch.setattr(rp, "ROOT", tmp_path)  # no .venv-ros here
    with pytest.raises(ExperimentFailed, match="install-ros-wheels.sh"):
        rp.require_rcl(tmp_path, tmp_path / "prog", "fastdds")
    (tmp_path / ".venv-ros/lib").mkdir(parents=True)
    (tmp_path / ".venv-ros/lib/librcl.so").touch()
    with pytest.raises(ExperimentFailed, match="not built: .*prog"):
        rp.require_rcl(tmp_path, tmp_path / "prog", "fastdds")
    (tmp_path / "prog").touch()
    rp.require_rcl(tmp_path, tmp_path / "prog", "fastdds")  # all there
    with pytest.raises(ExperimentFailed, match="librmw_baton_cpp.so"):
        rp.require_rcl(tmp_path, tmp_path / "prog", "baton")


def test_seed000_rcl_rows_run_the_rcl_program_in_the_wheels_env(tmp_path):
    ctx = Context("quick", 1, tmp_path, tmp_path, PARAMS["quick"])
    p = PARAMS["quick"][s0.NAME]
    exe, env = s0._program(ctx, "baton", p)
    assert exe.name == "baton-bench-seed000" and env is None
    with pytest.raises(ExperimentFailed, match="baton-bench-seed000-rcl"):
        s0._program(ctx, "rcl-baton-topic", p)  # this build folder has no such program
