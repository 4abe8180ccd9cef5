"""Study ``drive-test`` (seed 003): Cubic/Veno/Westwood+ (and Reno, BBR)
bulk transfers over replayed 3G drive logs. The package is named for what
it runs (3G drive logs), not ``drive_test``, which test collectors take for
a test module. The plan of runs is in :mod:`.run`, the scenarios and drive
logs in :mod:`.setup`, the metrics in :mod:`.measure`, the outputs in
:mod:`.report` and :mod:`.plots`."""

from .. import PackageStudy

STUDY = PackageStudy(
    "drive-test",
    "Cubic/Veno/Westwood+ (+Reno, BBR) bulk download over drive logs (seed 003)",
    __name__,
)
