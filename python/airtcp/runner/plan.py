"""A study's plan of runs, built the one way every study builds it.

A study runs the points of a grid — stacks × arms × drop rates × ..., where
an axis may depend on the axes before it (the arms a scenario has, the
modes a link allows) — each point for seeds 1..N. :func:`grid` lists the
points; a :class:`Plan` turns each point and seed into a
:class:`~airtcp.runner.study.Task` whose labels are the point's values and
the seed, in the order of the study's ``runs.csv`` columns (the same labels
name the run in errors: ``snoop scenario=s1 mac=80211 arm=tcp ...``), whose
scenario the study's function builds from those labels, and which is kept
for the plots when the study's rule says so. A study's ``run.py`` states
its axes, its scenario function and its kept runs; nothing else.

Run order is the order of :meth:`Plan.add` calls, then the points' order
(first axis outermost), then the seed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from .study import Task

#: Values an axis takes as several values; anything else is one value.
_MANY = (list, tuple, range)


def _values(axis, point: dict) -> list:
    v = axis(point) if callable(axis) else axis
    return list(v) if isinstance(v, _MANY) else [v]


def grid(**axes) -> list[dict]:
    """The points of the product of `axes`, the first axis outermost, each a
    dict axis name -> value in the axes' order. An axis is a list (tuple,
    range) of values, a single value (a str, number, None: a label every
    point shares), or a function of the point so far (the axes before it)
    that returns either::

        grid(stack=["ns2", "linux"], link=["wlan", "p2p"], mode=lambda p: modes_for(p["link"]))
    """
    points: list[dict] = [{}]
    for name, axis in axes.items():
        points = [{**p, name: v} for p in points for v in _values(axis, p)]
    return points


def seed_list(seeds: int | Iterable[int]) -> list[int]:
    """`seeds` as a list: N gives 1..N, an iterable its seeds."""
    return list(range(1, seeds + 1)) if isinstance(seeds, int) else list(seeds)


class Plan:
    """The runs of a study, in order.

    `scenario(labels) -> dict` builds a run's scenario from its labels (the
    point's values and ``seed``); `columns` is the order of the labels
    (``runs.csv``'s first columns), every label exactly once and ``seed``
    among them; without it, the point's order then ``seed``.
    """

    def __init__(self, scenario: Callable[[dict], dict], columns: Iterable[str] | None = None):
        self.scenario = scenario
        self.columns = tuple(columns) if columns is not None else None
        #: The runs planned so far, in order.
        self.tasks: list[Task] = []

    def add(self, points: Iterable[dict], seeds: int | Iterable[int], keep: bool | Callable[[dict], bool] = False) -> None:
        """Every point of `points` (see :func:`grid`) for every seed of
        `seeds` (N: seeds 1..N), the seed innermost. `keep`: whether a run's
        result goes to the study's ``keep`` callback (its plots), a bool or a
        function of the labels."""
        seeds = seed_list(seeds)
        for point in points:
            for seed in seeds:
                labels = self._labels({**point, "seed": seed})
                kept = keep(labels) if callable(keep) else keep
                self.tasks.append(Task(labels, self.scenario(labels), seed, keep=bool(kept)))

    def _labels(self, values: dict) -> dict:
        if self.columns is None:
            return values
        if sorted(values) != sorted(self.columns):
            raise ValueError(f"a run's labels {sorted(values)} are not the plan's columns {sorted(self.columns)}")
        return {c: values[c] for c in self.columns}
