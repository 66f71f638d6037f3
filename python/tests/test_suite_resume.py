"""bench/suite --resume: a stopped full suite keeps what it finished and runs only the rest.

Drives the real orchestrator (bench/suite/run.py main) with two small experiment modules, so the
test is about the bookkeeping, not about any transport.
"""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.suite import run as suite_run  # noqa: E402
from bench.suite import sections  # noqa: E402
from bench.suite.common import Result, Task  # noqa: E402


def _experiment(name: str, calls: list[str], fail: bool = False):
    """A module-like experiment whose single task records that it ran."""

    def measure(ctx):
        calls.append(name)
        if fail:
            raise RuntimeError(f"{name} broke")
        return [Result(name, "baton", "one", 8, [1.0, 2.0, 3.0], "us")]

    def report(ctx, summaries, plots):
        return f"## {name}\n\nmedian {summaries[0]['median']}", f"  {name} ok"

    m = types.SimpleNamespace(NAME=name)
    m.tasks = lambda ctx: [Task(name, f"{name} task", measure, weight=1.0)]
    m.report = report
    return m


@pytest.fixture
def two_experiments(monkeypatch):
    calls: list[str] = []
    exps = [_experiment("first", calls), _experiment("second", calls)]
    monkeypatch.setattr(suite_run, "EXPERIMENTS", exps)
    monkeypatch.setitem(suite_run.PARAMS, "quick", {})
    return calls, exps


def test_resume_keeps_finished_experiments_and_runs_the_rest(tmp_path, two_experiments):
    calls, exps = two_experiments
    out = str(tmp_path / "out")
    suite_run.main(["--suite", "quick", "--out", out, "--only", "first"])
    assert calls == ["first"]

    suite_run.main(["--suite", "quick", "--out", out, "--resume"])
    assert calls == ["first", "second"]  # "first" was kept, not measured again

    report = (tmp_path / "out" / "report.md").read_text()
    assert "## first" in report and "## second" in report
    assert "(complete)" in report
    assert report.count("_Measured ") == 2  # each section says when and on which build


def test_a_run_without_resume_forgets_earlier_sections(tmp_path, two_experiments):
    calls, _ = two_experiments
    out = str(tmp_path / "out")
    suite_run.main(["--suite", "quick", "--out", out])
    suite_run.main(["--suite", "quick", "--out", out])
    assert calls == ["first", "second", "first", "second"]


def test_resume_reruns_sections_of_another_seed_or_a_corrupt_file(tmp_path, two_experiments):
    calls, _ = two_experiments
    out = tmp_path / "out"
    suite_run.main(["--suite", "quick", "--out", str(out), "--seed", "1"])
    # Another seed: nothing of seed 1 is reused.
    suite_run.main(["--suite", "quick", "--out", str(out), "--seed", "2", "--resume"])
    assert calls == ["first", "second", "first", "second"]
    # A section file that does not parse is measured again, never trusted.
    (out / "sections" / "first.json").write_text("{not json")
    meta = json.loads((out / "sections" / "second.json").read_text())
    meta["provenance"]["wall_s"] = "many"
    (out / "sections" / "second.json").write_text(json.dumps(meta))
    suite_run.main(["--suite", "quick", "--out", str(out), "--seed", "2", "--resume"])
    assert calls[4:] == ["first", "second"]


def test_a_failed_task_is_kept_with_its_section_and_reported_after_resume(tmp_path, monkeypatch):
    calls: list[str] = []
    broken = _experiment("broken", calls, fail=True)
    broken.report = lambda ctx, summaries, plots: ("## broken\n\nnothing measured", "")
    monkeypatch.setattr(suite_run, "EXPERIMENTS", [broken, _experiment("fine", calls)])
    monkeypatch.setitem(suite_run.PARAMS, "quick", {})
    out = tmp_path / "out"
    suite_run.main(["--suite", "quick", "--out", str(out), "--only", "broken"])
    suite_run.main(["--suite", "quick", "--out", str(out), "--resume"])
    assert calls == ["broken", "fine"]
    report = (out / "report.md").read_text()
    assert "broken task" in report and "RuntimeError: broken broke" in report
    kept = sections.load(out, "broken", "quick", 1)
    assert kept is not None and kept.failures[0].what == "broken task"


def test_resume_with_only_measures_that_one_and_reports_the_whole_suite(tmp_path, monkeypatch):
    calls: list[str] = []
    exps = [_experiment(n, calls) for n in ("first", "second", "third")]
    monkeypatch.setattr(suite_run, "EXPERIMENTS", exps)
    monkeypatch.setitem(suite_run.PARAMS, "quick", {})
    out = tmp_path / "out"
    suite_run.main(["--suite", "quick", "--out", str(out), "--only", "first"])
    suite_run.main(["--suite", "quick", "--out", str(out), "--resume", "--only", "third"])
    assert calls == ["first", "third"]
    report = (out / "report.md").read_text()
    assert "## first" in report and "## third" in report
    assert "partial: 2 of 3 experiments" in report
    assert "| second | not run yet" in report
