"""bench/suite/exp_wire_stream.py without DDS: the listener's records are read as delivered /
verified / seq 0 (cut-off lines and duplicates left out), and the report marks the targets a
baton direction misses against the Fast DDS -> Fast DDS reference of the same cell."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.suite import exp_wire_stream as ws  # noqa: E402
from bench.suite.common import Context  # noqa: E402
from bench.suite.params import PARAMS  # noqa: E402


def _cell(tmp: Path, direction: str, records: list[str], sent: int = 10, rate: float = 10):
    rec, log = tmp / f"{direction}.rec", tmp / f"{direction}.log"
    rec.write_text("\n".join(records) + "\n")
    log.write_text(f"matched 0.500\nsent {sent} 0.900 0\n")
    d = ws.DIRECTIONS[direction]
    return ws._result(d, "64k", rate, "reliable", 1.0, sent, rec, log)


def _records(seqs, ms: float = 1.0, bad=()):
    return [f"{s} {int(ms * 1e6)} {0 if s in bad else 1}" for s in seqs]


def test_records_give_delivered_verified_and_seq0(tmp_path):
    lines = _records(range(1, 10), bad={4}) + ["3 1000000 1", "7 12"]  # a duplicate, a cut line
    r = _cell(tmp_path, "fastdds-baton", lines)
    e = r.extra
    assert (e["sent"], e["delivered"], e["verified"], e["duplicates"]) == (10, 9, 8, 1)
    assert e["first_delivered"] is False
    assert e["talker_match_s"] == 0.5 and e["publish_errors"] == 0
    assert r.summary()["median"] == 1.0 and r.summary()["sent"] == 10
    assert "rmem_default" in e


def test_misses_name_every_target(tmp_path):
    ref = _cell(tmp_path, "fastdds-fastdds", _records(range(10), ms=1.0))
    good = _cell(tmp_path, "baton-fastdds", _records(range(10), ms=1.1))
    assert ws.misses(good, ref) == []
    bad = _cell(tmp_path, "fastdds-baton", _records(range(1, 10), ms=2.0, bad={5}))
    m = ws.misses(bad, ref)
    assert "delivered < ref" in m and "reliable < 100 %" in m and "seq 0 lost" in m
    assert "median > 1.2x ref" in m and "1 corrupt" in m
    # At 30 Hz reliable needs only the reference's fraction, not 100 %.
    ref30 = _cell(tmp_path, "fastdds-fastdds", _records(range(2, 10)), rate=30)
    late = _cell(tmp_path, "native-fastdds", _records(range(9)), rate=30)
    assert ws.misses(late, ref30) == []
    late.extra["problems"] = ["listener did not exit within 10 s of the stop, 99 % CPU: killed"]
    assert ws.misses(late, ref30)[-1].startswith("failed: listener did not exit")


def test_report_rows_ratios_and_a_missing_cell(tmp_path):
    params = dict(PARAMS["quick"][ws.NAME], sizes=["64k"], rates=[10], qos=["reliable"])
    ctx = Context("quick", 1, tmp_path, tmp_path, {ws.NAME: params})
    ctx.results = [
        _cell(tmp_path, "fastdds-fastdds", _records(range(10), ms=1.0)),
        _cell(tmp_path, "baton-fastdds", _records(range(10), ms=0.5)),
        _cell(tmp_path, "fastdds-baton", _records(range(1, 10), ms=1.0)),
    ]  # native-fastdds failed: no result
    md, short = ws.report(ctx, [], tmp_path)
    rows = {ln.split("|")[4].strip(): ln for ln in md.splitlines() if ln.startswith("| 64k")}
    assert "| 1.00 | 0.50 | ok |" in rows["rmw_baton_cpp -> Fast DDS"]
    assert "| 9/10 | 9 | **no** |" in rows["Fast DDS -> rmw_baton_cpp"]
    assert "seq 0 lost" in rows["Fast DDS -> rmw_baton_cpp"]
    assert "failed" in rows["Ros2Publisher -> Fast DDS"]
    assert "rmw_baton_cpp -> Fast DDS 0 of 1" in md and "Ros2Publisher -> Fast DDS 1 of 1" in md
    assert "rmem_default" in md and len(short.splitlines()) == 3
