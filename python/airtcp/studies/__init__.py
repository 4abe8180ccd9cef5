"""``airtcp reproduce STUDY``: studies that regenerate a seed paper's table
and plots from simulations.

Each study is a package ``airtcp.studies.<package>`` laid out the same way:

- ``setup.py``: the scenarios (arms, stacks, the shipped scenario files);
- ``run.py``: its arguments, its plan of runs (:class:`airtcp.runner.plan.Plan`)
  and ``main(args)``, which hands the plan to the runner;
- ``measure.py``: the metrics of one run and the per-arm table;
- ``report.py``: report.md; ``plots.py``: the PNG figures;
- modules for a study's own parts (``stacks.py``: the claims on both TCP
  stacks, ...).

Its ``__init__`` exposes ``STUDY``, an object of the :class:`Study`
protocol that ``airtcp reproduce`` drives; the runs go through the one
runner of sweeps and studies (:mod:`airtcp.runner`). Study packages import
only the standard library at the top, so building the parser stays cheap;
pandas and matplotlib are imported when a study runs. Shared helpers:
:mod:`.reporting` (statistics and Markdown), :mod:`.plotting` (Matplotlib).
"""

from __future__ import annotations

import argparse
from typing import Protocol, runtime_checkable

#: CLI name -> package under airtcp.studies, in the order of ``--help``.
STUDIES = {
    "drive-test": "drive_3g",
    "sdn-zwa": "sdn_zwa",
    "snoop": "snoop",
    "tcpfender": "tcpfender",
    "wi-tcp": "wi_tcp",
}


@runtime_checkable
class Study(Protocol):
    """What ``airtcp reproduce`` needs of a study."""

    #: The name on the command line (``airtcp reproduce NAME``).
    name: str
    #: One line for ``--help``: what the study runs and which seed it reproduces.
    about: str

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """The study's arguments (built on
        :func:`airtcp.runner.study.add_common_arguments`)."""

    def main(self, args: argparse.Namespace) -> int:
        """Run the study with parsed arguments; the exit status (0 done, 1 a
        run failed, 2 bad input, nothing written)."""


class PackageStudy:
    """A :class:`Study` whose ``run`` module (imported when the study is
    used, so ``--help`` stays cheap) has ``add_arguments(parser)`` and
    ``main(args) -> int``, which the runner calls after checking the
    common arguments (:func:`airtcp.runner.study.study_main`)."""

    def __init__(self, name: str, about: str, package: str):
        self.name, self.about, self.package = name, about, package

    def _run(self):
        import importlib

        return importlib.import_module(".run", self.package)

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        self._run().add_arguments(parser)

    def main(self, args: argparse.Namespace) -> int:
        from ..runner.study import study_main

        return study_main(args, self._run().main)


def study(name: str) -> Study:
    """The study registered as `name`."""
    import importlib

    got = importlib.import_module(f".{STUDIES[name]}", __name__).STUDY
    if not isinstance(got, Study) or got.name != name:
        raise TypeError(f"airtcp.studies.{STUDIES[name]}.STUDY is not the study {name!r}")
    return got


def add_arguments(p: argparse.ArgumentParser) -> None:
    """One sub-command per study under ``airtcp reproduce``."""
    sub = p.add_subparsers(dest="study", metavar="STUDY")
    sub.required = True
    for name in STUDIES:
        s = study(name)
        sp = sub.add_parser(name, help=s.about, description=s.about)
        s.add_arguments(sp)


def main(args: argparse.Namespace) -> int:
    return study(args.study).main(args)
