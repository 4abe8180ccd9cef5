"""Study ``snoop`` (seed 004): upload/download response time against the
drop rate with and without Snoop over 802.11b. The plan of runs is in
:mod:`.run`, the scenarios and arms in :mod:`.setup`, the metrics in
:mod:`.measure`, the outputs in :mod:`.report` (with :mod:`.table`, the
table reader and shared cell formats, and :mod:`.stacks`, the stack
comparison) and :mod:`.plots`."""

from .. import PackageStudy

STUDY = PackageStudy(
    "snoop",
    "upload/download response time vs drop rate with and without Snoop over 802.11b (seed 004)",
    __name__,
)
