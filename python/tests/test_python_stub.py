"""The committed type stubs (python/baton/_baton.pyi) say what the built native module has: a class,
function, signature or docstring added to the bindings without regenerating them fails here."""

from __future__ import annotations

import importlib.util

from conftest import ROOT


def _generator():
    spec = importlib.util.spec_from_file_location(
        "gen_python_stub", ROOT / "scripts" / "gen_python_stub.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_stub_is_what_the_built_module_generates():
    from baton import _baton

    # The stub describes the full build (what `make build` configures after `make deps`): a
    # module built without the ROS 2 DDS wire or the ROS 1 node lacks their classes, and fails
    # here saying so rather than with a diff.
    assert _baton.HAVE_ROS2_WIRE and _baton.ROS1_NODE_AVAILABLE, (
        "this module was built without the ROS 2 wire or the ROS 1 node; the stub describes the "
        "full build (make deps && make build)"
    )
    gen = _generator()
    diff = gen.difference(gen.STUB.read_text(), gen.generate())
    assert diff == "", f"the stub is out of date: run `{gen.COMMAND}`\n{diff}"
