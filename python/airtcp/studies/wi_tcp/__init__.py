"""Study ``wi-tcp`` (seed 001): Tahoe/Reno/NewReno over Mobile IP,
route-optimised Mobile IP, Wi-TCP and EHN across handoffs. The plan of runs
is in :mod:`.run`, the scenarios in :mod:`.setup`, the metrics in
:mod:`.measure` and :mod:`.delays` (Wi-TCP's delay analysis), the outputs
in :mod:`.report`, :mod:`.stacks` and :mod:`.plots`."""

from .. import PackageStudy

STUDY = PackageStudy(
    "wi-tcp",
    "Tahoe/Reno/NewReno over Mobile IP, route-optimised MIP, Wi-TCP and EHN across handoffs, 802.11 and p2p (seed 001)",
    __name__,
)
