"""Study ``tcpfender`` (seed 002): TCP/IP vs TCPFender (and plain MORE)
over a lossy 802.11 mesh. The plan of runs is in :mod:`.run`, the
scenarios in :mod:`.setup`, the metrics in :mod:`.measure` and
:mod:`.metrics`, the outputs in :mod:`.report`, :mod:`.stacks` and
:mod:`.plots`."""

from .. import PackageStudy

STUDY = PackageStudy(
    "tcpfender",
    "TCP/IP vs TCPFender (and plain MORE) over a lossy 802.11 mesh (seed 002)",
    __name__,
)
