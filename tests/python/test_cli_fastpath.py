"""The argparse-free reading of ``airtcp run`` command lines gives exactly
what argparse gives, and leaves everything else to argparse."""

import pytest

from airtcp import cli

FIELDS = ("command", "scenario", "out", "seed", "overrides", "pcap", "quiet")

TAKEN = [
    ["run", "s.toml", "--out", "o"],
    ["run", "--out", "o", "s.toml"],
    ["run", "s.toml", "-o", "o", "-q"],
    ["run", "s.toml", "--out", "a", "--out", "b"],
    ["run", "s.toml", "--out", "o", "--seed", "42", "--pcap", "--quiet"],
    ["run", "s.toml", "--out", "o", "--seed", "+7"],
    ["run", "s.toml", "--out", "o", "--set", "sim.duration=600s", "--set", "flows.0.tcp.cc=reno"],
    ["run", "s.toml", "--set", "links.1.delay=-1ms", "--out", "o"],
    ["run", "", "--out", ""],
    ["run", "dir with space/s.toml", "--out", "x=y"],
]

LEFT_TO_ARGPARSE = [
    [],
    ["run"],
    ["--version"],
    ["plot", "d"],
    ["run", "s.toml"],
    ["run", "s.toml", "--out"],
    ["run", "s.toml", "--out", "-x"],
    ["run", "s.toml", "--out=o"],
    ["run", "s.toml", "--ou", "o"],
    ["run", "s.toml", "--out", "o", "--seed", "x"],
    ["run", "s.toml", "--out", "o", "--seed", "-5"],
    ["run", "s.toml", "t.toml", "--out", "o"],
    ["run", "s.toml", "--out", "o", "--help"],
    ["run", "s.toml", "--out", "o", "--"],
    ["run", "-", "--out", "o"],
    ["run", "s.toml", "--out", "o", "-qo", "p"],
]


@pytest.mark.parametrize("argv", TAKEN, ids=" ".join)
def test_fast_path_matches_argparse(argv):
    fast = cli._fast_run_args(argv)
    assert fast is not None
    slow = cli._parser().parse_args(argv)
    assert {f: getattr(fast, f) for f in FIELDS} == {f: getattr(slow, f) for f in FIELDS}
    assert sorted(vars(slow)) == sorted(FIELDS)


@pytest.mark.parametrize("argv", LEFT_TO_ARGPARSE, ids=lambda a: " ".join(a) or "<none>")
def test_other_command_lines_go_to_argparse(argv):
    assert cli._fast_run_args(argv) is None


def test_plain_run_does_not_import_argparse(tmp_path, small_toml):
    import subprocess
    import sys

    code = (
        "import sys; from airtcp.cli import main; "
        f"rc = main(['run', {str(small_toml)!r}, '--out', {str(tmp_path / 'o')!r}, '--quiet', "
        "'--set', 'sim.duration=100ms']); "
        "print(rc, 'argparse' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "0 False", out.stdout + out.stderr
