"""Issue 20's memory cell: what one stream costs in memory, baton next to iceoryx2.

One publisher process and one subscriber process (the stream roles of bench/stream, the same
programs the latency scenarios use), one message size per run, paced so every message is
delivered; the publisher writes every payload byte (--fill, as a camera fills its frame), so
the pages the stream cycles through are resident in every system. While both run, their
/proc/<pid>/smaps is sampled every 50 ms and the peak of each
figure kept:
  rss       resident set of the process (code, heap, stacks and mapped shared memory)
  private   resident pages only this process holds (Private_Clean + Private_Dirty)
  shm       resident pages of its /dev/shm mappings (the middleware's shared memory as this
            process sees it)
and the /dev/shm files either process maps, counted once however many processes map them:
  stream_allocated     tmpfs pages the stream's files hold (memory the machine gives it)
  stream_reserved      their file sizes (what the stream may grow to use)
  namespace_allocated  baton's graph registry: once per namespace, shared by every stream
                       (iceoryx2 keeps no such table in /dev/shm)
The ratio baton / iceoryx2 is the issue's target (≤ 1.5x)."""

from __future__ import annotations

import os
from pathlib import Path

from .common import Context, ExperimentFailed, Result, Task, md_table
from .stream import Role, eta, run_roles

NAME = "memory"
FIGURES = ("rss", "private", "shm")


def _smaps(pid: int) -> tuple[dict[str, int], set[str]]:
    """(figures in KiB, /dev/shm paths mapped) of process `pid`; empty if it has exited."""
    fig = dict.fromkeys(FIGURES, 0)
    paths: set[str] = set()
    path = ""
    try:
        text = Path(f"/proc/{pid}/smaps").read_text()
    except OSError:
        return {}, set()
    for line in text.splitlines():
        head, _, rest = line.partition(" ")
        if not head.endswith(":"):  # a mapping's header: "start-end perms offset dev inode [path]"
            parts = line.split(maxsplit=5)
            path = parts[5] if len(parts) == 6 else ""
            if path.startswith("/dev/shm/"):
                paths.add(path.removesuffix(" (deleted)"))
            continue
        head = head[:-1]
        if head not in ("Rss", "Private_Clean", "Private_Dirty"):
            continue
        kib = int(rest.split()[0])
        if head == "Rss":
            fig["rss"] += kib
            if path.startswith("/dev/shm/"):
                fig["shm"] += kib
        else:
            fig["private"] += kib
    return fig, paths


# baton's graph registry: one per namespace (shared by every stream and process in it), so it is
# reported apart from what one stream costs.
REGISTRY = ".g.registry"  # /dev/shm/baton.<uid>.<namespace>.g.registry


def _shm_files_kib(paths: set[str]) -> dict[str, int]:
    """Allocated (tmpfs pages held) and reserved (file size) KiB of the /dev/shm files `paths`,
    the per-namespace registry apart."""
    out = {"stream_allocated": 0, "stream_reserved": 0, "namespace_allocated": 0}
    for p in paths:
        try:
            st = os.stat(p)
        except OSError:
            continue  # removed since it was seen (the run ended)
        if p.startswith("/dev/shm/baton.") and p.endswith(REGISTRY):
            out["namespace_allocated"] += st.st_blocks * 512 // 1024
        else:
            out["stream_allocated"] += st.st_blocks * 512 // 1024
            out["stream_reserved"] += st.st_size // 1024
    return out


def _one(ctx: Context, system: str, size: int) -> list[Result]:
    p = ctx.params[NAME]
    peak = {"publisher": dict.fromkeys(FIGURES, 0), "subscriber": dict.fromkeys(FIGURES, 0)}
    shm_files: set[str] = set()
    files_peak: dict[str, int] = {}
    role_of = {"sub": "subscriber", "pub": "publisher"}

    def watch(pids: dict[str, int]) -> None:
        for name, pid in pids.items():
            fig, paths = _smaps(pid)
            for k, v in fig.items():
                peak[role_of[name]][k] = max(peak[role_of[name]][k], v)
            shm_files.update(paths)
        for k, v in _shm_files_kib(shm_files).items():
            files_peak[k] = max(files_peak.get(k, 0), v)

    roles = [Role("sub", "receiver", {"in": "memory"}), Role("pub", "sender", {"out": "memory"})]
    common = {
        "sizes": size,
        "per_size": p["count"],
        "rate": p["rate"],
        "depth": p["depth"],
        "subscribers": 1,
        "fill": 1,
    }
    logs = run_roles(ctx, system, "blocking", roles, common, p["timeout_s"], watch=watch)
    received = len(logs.recvs.get("sub", []))
    if received != p["count"]:
        raise ExperimentFailed(f"{system}: {received} of {p['count']} messages arrived")
    if not all(peak[r]["rss"] for r in peak):
        raise ExperimentFailed(f"{system}: a role exited before its memory was sampled")
    conf = f"1 publisher + 1 subscriber, depth {p['depth']}, {p['rate']} Hz"
    out = []
    for role, fig in peak.items():
        for k, v in fig.items():
            extra = {"role": role, "figure": k, "shm_files": len(shm_files)}
            out.append(Result(NAME, system, f"{conf}, {role} {k}", size, [float(v)], "KiB", extra))
    for k, v in files_peak.items():
        extra = {"role": "machine", "figure": k, "shm_files": len(shm_files)}
        out.append(Result(NAME, system, f"{conf}, /dev/shm {k}", size, [float(v)], "KiB", extra))
    return out


def tasks(ctx: Context) -> list[Task]:
    p = ctx.params[NAME]
    return [
        Task(
            NAME,
            f"memory {system} {size} B",
            lambda c, s=system, z=size: _one(c, s, z),
            weight=eta(system, p["count"], paced_s=p["count"] / p["rate"]),
        )
        for size in p["sizes"]
        for system in p["systems"]
    ]


def _kib(v: float) -> str:
    return f"{v / 1024:.1f} MiB" if v >= 10 * 1024 else f"{v:.0f} KiB"


def report(ctx: Context, summaries: list[dict], plots: Path) -> tuple[str, str]:
    p = ctx.params[NAME]
    res = [r for r in ctx.results if r.experiment == NAME]
    value = {(r.system, r.size, r.extra["role"], r.extra["figure"]): r.values[0] for r in res}
    cells = [
        ("publisher", "rss"),
        ("publisher", "private"),
        ("publisher", "shm"),
        ("subscriber", "rss"),
        ("subscriber", "private"),
        ("subscriber", "shm"),
        ("machine", "stream_allocated"),
        ("machine", "stream_reserved"),
        ("machine", "namespace_allocated"),
    ]
    rows, short = [], []
    for size in p["sizes"]:
        for role, fig in cells:
            row = [size, f"{role} {fig}"]
            got = [value.get((s, size, role, fig)) for s in p["systems"]]
            row += [_kib(v) if v is not None else "failed" for v in got]
            base, peer = got[0], got[1] if len(got) > 1 else None
            ratio = f"{base / peer:.2f}" if base is not None and peer else "-"
            row.append(ratio)
            rows.append(row)
            if fig in ("rss", "stream_allocated"):
                short.append(f"  {size:>9} B {role:<10} {fig:<13} " + " ".join(row[2:]))
    systems = p["systems"]
    md = [
        "## Memory per publisher and subscriber (issue 20)",
        "",
        f"One stream, {p['count']} messages at {p['rate']} Hz, depth {p['depth']}, every payload "
        "byte written by the publisher; peak over "
        "the run of each process's resident set (rss), pages only it holds (private) and its "
        "resident /dev/shm mappings (shm); the tmpfs pages (allocated) and file sizes "
        "(reserved) of the stream's /dev/shm files, and baton's graph registry, which one "
        "namespace holds once for all its streams (namespace). Ratio = "
        f"{systems[0]} / {systems[1] if len(systems) > 1 else '-'} (target ≤ 1.5).",
        "",
        md_table(["size (B)", "figure", *systems, "ratio"], rows) if rows else "no system ran",
        "",
    ]
    return "\n".join(md), "\n".join(short)
