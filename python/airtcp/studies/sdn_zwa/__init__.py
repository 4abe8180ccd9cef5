"""Study ``sdn-zwa`` (seed 000): bare TCP vs SDN-assisted zero-window
advertisements across Wi-Fi roams. The plan of runs is in :mod:`.run`, the
scenarios in :mod:`.setup`, the metrics in :mod:`.measure`, the outputs in
:mod:`.report`, :mod:`.stacks` and :mod:`.plots`; :mod:`.kernel` runs the
``--emulate`` arm on a real Linux sender."""

from .. import PackageStudy

STUDY = PackageStudy(
    "sdn-zwa",
    "bare TCP vs SDN-assisted zero-window advertisements across Wi-Fi roams (seed 000)",
    __name__,
)
