"""bench/seed004: seed 004's chain as ROS 1 nodes delivers every message, over the transport each
hop should use.

Real components: a private rosmaster, stock roscpp and rospy nodes (Debian's ROS 1) and baton
ROS 1 nodes (build/bench/seed004), driven by the suite experiment's own runner. Each receiver
checks every message's value (add_para adds seq to it, so a message that skipped the middle node
or was corrupted counts as corrupt and fails its node); a baton end reports which transport its
hop carried (BATONSHM between baton nodes, TCPROS with a stock node), checked against the
expected one. A missing ROS 1 package or node program fails with the install hint.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.suite import exp_seed004 as seed004  # noqa: E402
from bench.suite.common import Context  # noqa: E402
from bench.suite.params import PARAMS  # noqa: E402

COUNT = 200


@pytest.fixture
def ctx(tmp_path):
    build = Path(os.environ.get("BATON_BUILD_DIR", ROOT / "build"))
    return Context("quick", 1, build, tmp_path, PARAMS["quick"])


B, BB, CPP, PY = seed004.BATON, seed004.BATON_BYTES, seed004.ROSCPP, seed004.ROSPY
SHM, TCP = "BATONSHM", "TCPROS"


@pytest.mark.parametrize(
    "nodes, hops",
    [
        ((B, B, B), [SHM, SHM]),
        ((BB, BB, BB), [SHM, SHM]),
        ((CPP, B, PY), [TCP, TCP]),
        ((BB, CPP, B), [TCP, TCP]),
        ((PY, BB, CPP), [TCP, TCP]),
    ],
)
def test_chain_delivers_every_message_over_the_expected_transport(ctx, nodes, hops):
    r = seed004._run(ctx, "test", nodes, 8, {"count": COUNT, "rate": 500, "timeout_s": 60})
    assert (r.extra["sent"], r.extra["received"]) == (COUNT, COUNT)
    assert len(r.values) == COUNT and all(v > 0 for v in r.values)
    assert r.extra["hops"] == hops
    # A baton end's own count of what went which way (its .stats file) agrees with `hops`.
    assert r.extra["problems"] == []


def test_a_4k_image_from_a_baton_node_reaches_a_roscpp_node_over_tcpros(ctx):
    p = {"count": 5, "rate": 10, "timeout_s": 60}
    r = seed004._run(ctx, "baton -> roscpp", (B, CPP), seed004.IMAGE_BYTES, p)
    assert (r.extra["sent"], r.extra["received"]) == (5, 5)
    assert r.extra["hops"] == [TCP] and r.extra["problems"] == []
