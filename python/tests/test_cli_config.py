"""`baton config show | explain`: effective settings, their source, and their meaning; and shell
completion of the new verbs (argcomplete, as the shell runs it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import run_cli


def test_explain_of_unknown_key_lists_the_known_ones(ns):
    r = run_cli("config", "explain", "no.such.key")
    assert r.returncode == 2 and "error:" in r.stderr and "qos.depth" in r.stderr
    assert "Traceback" not in r.stderr


def test_show_reports_namespace_from_env_and_core_defaults(ns):
    r = run_cli("config", "show", "--format", "json", check=True)
    cfg = json.loads(r.stdout)
    assert cfg["namespace"] == {"value": ns, "source": "env BATON_NAMESPACE"}
    assert cfg["segment_prefix"]["value"].startswith(f"/baton.{os.getuid()}.{ns}.")
    assert cfg["qos.depth"] == {"value": 10, "source": "default (QoS)"}  # QoS() in qos.hpp
    assert cfg["qos.reliability"]["value"] == "reliable"
    assert cfg["wait_mode"]["value"] == "blocking"
    assert cfg["max_message_size"]["value"] == 256 << 20
    # The pool's growth settings (PoolConfig in chunk_pool.hpp).
    assert cfg["max_segment_bytes"] == {"value": 1 << 30, "source": "default (PoolConfig)"}
    assert cfg["expected_outstanding"]["value"] == 0
    assert cfg["segment_mode"]["value"] == "0600"
    table = run_cli("config", "show", check=True).stdout
    assert "namespace" in table and ns in table and "env BATON_NAMESPACE" in table


def test_show_without_namespace_says_default(ns):
    env = {k: v for k, v in os.environ.items() if k != "BATON_NAMESPACE"}
    r = run_cli("config", "show", "--format", "json", check=True, env=env)
    assert json.loads(r.stdout)["namespace"]["source"] == "default ('default')"


def test_explain_one_key_says_what_it_does_and_how_to_change_it(ns):
    r = run_cli("config", "explain", "qos.reliability", check=True)
    assert r.stdout.startswith("qos.reliability = reliable")
    assert "best_effort" in r.stdout and "change:" in r.stdout
    every = json.loads(run_cli("config", "explain", "--format", "json", check=True).stdout)
    assert all(e["meaning"] and e["change"] and e["source"] for e in every)


def complete(line: str, tmp_path) -> list[str]:
    """What argcomplete offers for `line` (the shell hook's protocol)."""
    out = tmp_path / "completions"
    env = dict(
        os.environ,
        _ARGCOMPLETE="1",
        _ARGCOMPLETE_IFS="\n",
        COMP_LINE=line,
        COMP_POINT=str(len(line)),
        _ARGCOMPLETE_STDOUT_FILENAME=str(out),
    )
    subprocess.run([sys.executable, "-m", "baton"], env=env, timeout=30, capture_output=True)
    return out.read_text().split("\n") if out.exists() else []


def test_shell_completion_offers_the_new_verbs(ns, tmp_path):
    assert "shm" in complete("baton s", tmp_path)
    assert {"show", "explain"} <= set(complete("baton config ", tmp_path))
    assert {"list", "inspect", "clean"} <= set(complete("baton shm ", tmp_path))
    assert "qos.depth" in complete("baton config explain qos.d", tmp_path)
