"""bench/suite reports: a configuration where every message was lost reads "none arrived", never a
latency of 0 (stats() of no samples is all zeros), and its JSON summary has null figures."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.suite import exp_pingpong_d  # noqa: E402
from bench.suite.common import Context, Result, figure_cell  # noqa: E402
from bench.suite.params import PARAMS  # noqa: E402


def _round_trips(size: int, values: list[float], sent: int) -> Result:
    extra = {
        "rate_hz": 1000,
        "pairs": 1,
        "pair": 0,
        "subtest": "rates",
        "sent": sent,
        "answered": len(values),
        "skipped_ticks_run": 0,
        "first_seq": 0,
        "delivery": "test",
    }
    return Result(exp_pingpong_d.NAME, "baton", "rates", size, values, "us", extra)


def test_summary_of_a_run_where_nothing_arrived_has_null_figures():
    s = _round_trips(128, [], sent=20).summary()
    assert s["samples"] == 0
    assert all(s[k] is None for k in ("mean", "median", "sd", "p99", "max"))
    assert _round_trips(128, [5.0, 7.0], sent=2).summary()["median"] == 7.0


def test_figure_cell_says_none_arrived_instead_of_zero():
    assert figure_cell([]) == "none arrived"
    assert figure_cell([10.0, 30.0, 20.0]) == "20"
    assert figure_cell([10.0, 30.0, 20.0], "max") == "30"


def test_scenario_d_table_marks_a_size_whose_answers_were_all_lost(tmp_path):
    params = PARAMS["quick"]
    sizes = params[exp_pingpong_d.NAME]["one_pair"]["sizes"]
    ctx = Context("quick", 1, tmp_path, tmp_path, params)
    ctx.results = [
        _round_trips(sizes[0], [40.0, 42.0, 44.0], sent=3),
        _round_trips(sizes[1], [90.0, 91.0, 92.0], sent=3),
        _round_trips(sizes[2], [], sent=3),  # every answer lost
    ]
    md, short = exp_pingpong_d.report(ctx, [], tmp_path)
    row = next(line for line in md.splitlines() if line.startswith("| baton | 1 | 1000 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    # system, pairs, Hz, pair, then one cell per size of the report's size columns.
    assert "42" in cells and "91" in cells and "none arrived" in cells
    assert cells[-1] == "3"  # the three unanswered messages are counted as lost
    assert "RTT median" in short
