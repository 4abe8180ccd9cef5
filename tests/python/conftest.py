"""Shared fixtures: a small scenario (as a dict and as a TOML file), the
shipped bulk-lossy scenario shortened to 5 s, and a runner for the real
``airtcp`` console script."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BULK_LOSSY = REPO / "scenarios" / "bulk-lossy.toml"

#: Two hosts, one 10 Mb/s 10 ms link losing 1 % of the data, one bulk flow.
SMALL_TOML = """\
[sim]
duration = "3s"
seed = 7

[[nodes]]
name = "server"

[[nodes]]
name = "mobile"

[[links]]
a = "server"
b = "mobile"
rate = "10Mbps"
delay = "10ms"
queue_packets = 50
loss_ab = { model = "uniform", p = 0.01 }

[[flows]]
from = "server"
to = "mobile"
"""


def small_dict():
    return {
        "sim": {"duration": "3s", "seed": 7},
        "nodes": [{"name": "server"}, {"name": "mobile"}],
        "links": [
            {
                "a": "server",
                "b": "mobile",
                "rate": "10Mbps",
                "delay": "10ms",
                "queue_packets": 50,
                "loss_ab": {"model": "uniform", "p": 0.01},
            }
        ],
        "flows": [{"from": "server", "to": "mobile"}],
    }


@pytest.fixture
def small_scenario():
    return small_dict()


@pytest.fixture
def small_toml(tmp_path):
    p = tmp_path / "small.toml"
    p.write_text(SMALL_TOML)
    return p


@pytest.fixture
def cli_scenario(small_toml):
    """(path, extra --set args): the shipped bulk-lossy cut to 5 s when it
    exists, else the small scenario."""
    if BULK_LOSSY.exists():
        return BULK_LOSSY, ["--set", "sim.duration=5s"]
    return small_toml, []


def airtcp_cmd():
    """The installed console script next to this interpreter, else `python -m airtcp`."""
    exe = Path(sys.executable).with_name("airtcp")
    if exe.exists():
        return [str(exe)]
    found = shutil.which("airtcp")
    return [found] if found else [sys.executable, "-m", "airtcp"]


def run_cli(*args, check=True):
    env = dict(os.environ, PYTHONWARNINGS="error::DeprecationWarning:airtcp")
    proc = subprocess.run(
        airtcp_cmd() + [str(a) for a in args], capture_output=True, text=True, env=env, timeout=600
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"airtcp {args} exited {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    return proc
