"""Finished experiments kept on disk, so a long suite can be completed over several sittings.

The full suite takes ~3 h on the 2-vCPU VM. Each experiment, once finished, leaves its report
section, console summary, failures and provenance (when it ran, which build, how long, the load
average at its start) in ``out/sections/<experiment>.{md,json}``. ``run.py --resume`` keeps the
experiments already finished for the same suite and seed and runs only the rest; the report says
per experiment when and on which commit it ran. Each experiment is still measured in one sitting,
with all its peers side by side, so its ratios never mix runs.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .common import Failure


@dataclass
class Provenance:
    """When and where an experiment was measured."""

    started_utc: str
    wall_s: float
    commit: str
    load_at_start: tuple[float, float, float]

    def line(self) -> str:
        la = ", ".join(f"{x:.2f}" for x in self.load_at_start)
        return (
            f"_Measured {self.started_utc} in {self.wall_s:.0f} s on baton {self.commit}; "
            f"load average at its start {la}._"
        )


@dataclass
class Section:
    """One finished experiment: what the report and the console print of it."""

    name: str
    suite: str
    seed: int
    markdown: str
    short: str
    provenance: Provenance
    failures: list[Failure] = field(default_factory=list)


def utc_now() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())


def load_average() -> tuple[float, float, float]:
    try:
        return os.getloadavg()
    except OSError:  # pragma: no cover - not on Linux
        return (0.0, 0.0, 0.0)


def _dir(out: Path) -> Path:
    return out / "sections"


def clear(out: Path) -> None:
    """A run without --resume starts afresh: sections of an earlier run would be misattributed."""
    shutil.rmtree(_dir(out), ignore_errors=True)


def save(out: Path, s: Section) -> None:
    d = _dir(out)
    d.mkdir(parents=True, exist_ok=True)
    meta = asdict(s)
    del meta["markdown"]
    (d / f"{s.name}.md").write_text(s.markdown)
    # Written last and renamed into place: a section counts as finished only once its JSON exists.
    tmp = d / f".{s.name}.json.tmp"
    tmp.write_text(json.dumps(meta, indent=1))
    tmp.replace(d / f"{s.name}.json")


def load(out: Path, name: str, suite: str, seed: int) -> Section | None:
    """The saved section of `name` if one finished for this suite and seed, else None. A section
    file that does not parse is ignored (the experiment runs again), never trusted."""
    d = _dir(out)
    try:
        meta = json.loads((d / f"{name}.json").read_text())
        md = (d / f"{name}.md").read_text()
        if meta["suite"] != suite or meta["seed"] != seed or meta["name"] != name:
            return None
        p = meta["provenance"]
        load_avg = tuple(float(x) for x in p["load_at_start"])
        prov = Provenance(p["started_utc"], float(p["wall_s"]), p["commit"], load_avg)
        fails = [Failure(f["experiment"], f["what"], f["reason"]) for f in meta["failures"]]
        return Section(name, suite, seed, md, meta["short"], prov, fails)
    except (OSError, ValueError, KeyError, TypeError):
        return None
