"""The kernel's UDP receive-buffer limits that cap large ROS 2 messages on the DDS wire.

A 4K camera image is 24.9 MB. A DDS writer sends it as a burst of ~400 datagrams; whatever does
not fit in the receiving socket's buffer while the reader is not running is dropped and must be
repaired, one NACK round at a time. Two sysctls set those buffers:

- net.core.rmem_max: the most a socket may ask for. baton's wire asks for 64 MiB
  (src/ros2/dds_domain_config.hpp); Debian's default caps it at 208 KiB.
- net.core.rmem_default: what a socket gets without asking. Fast DDS (rmw_fastrtps_cpp) does not
  ask, so its readers hold only this; below ~32 MiB a 4K stream at 10 Hz from any writer on the
  same host loses images (BENCHMARKS.md, "DDS wire stream").

Pure Python with no package imports, so scripts/tune-net.sh can run it before baton is built:
    python3 python/baton/cli/net_limits.py --sysctl-conf   # the lines to put in /etc/sysctl.d
"""

from __future__ import annotations

import sys
from pathlib import Path

# (sysctl name, value baton wants, why)
WANTED = (
    ("net.core.rmem_max", 64 << 20, "baton's DDS sockets ask for 64 MiB"),
    ("net.core.rmem_default", 32 << 20, "Fast DDS readers keep the default: one 4K image burst"),
)


def read_sysctl(name: str) -> int | None:
    try:
        return int(Path("/proc/sys", *name.split(".")).read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def low_limits() -> list[tuple[str, int | None, int, str]]:
    """The limits below what baton wants: (name, current or None, wanted, why)."""
    out = []
    for name, wanted, why in WANTED:
        current = read_sysctl(name)
        if current is None or current < wanted:
            out.append((name, current, wanted, why))
    return out


def sysctl_command(low: list[tuple[str, int | None, int, str]]) -> str:
    return "sysctl -w " + " ".join(f"{name}={wanted}" for name, _, wanted, _ in low)


def sysctl_conf() -> str:
    lines = ["# baton: UDP receive buffers for large ROS 2 messages over DDS (baton doctor)"]
    lines += [f"{name} = {wanted}" for name, wanted, _ in WANTED]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    if sys.argv[1:] == ["--sysctl-conf"]:
        sys.stdout.write(sysctl_conf())
    else:
        sys.exit("usage: net_limits.py --sysctl-conf")
