"""The one progress display of sweeps and studies, on stderr.

On a terminal: ``[####......] 12/40  30% 2.1 runs/s ETA 0:14 (1 failed)
<last run>``, one line rewritten at most ten times a second (and for the
last run). Elsewhere (a log file, CI): ``[i/n] <last run>`` on a line of its
own for every tenth of the runs, so a log shows the pace without a line per
run. Nothing when quiet."""

from __future__ import annotations

import math
import sys
import time

#: Width of the bar in characters.
BAR_WIDTH = 24
#: Least time between two redraws on a terminal (seconds).
REDRAW_S = 0.1


class Progress:
    """Progress of `total` runs; call :meth:`update` once per finished run
    and :meth:`close` at the end (or on interruption)."""

    def __init__(self, total: int, quiet: bool = False, stream=None):
        self.stream = stream or sys.stderr
        self.total = total
        self.quiet = quiet or total == 0
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.done, self.failed = 0, 0
        self.t0 = time.perf_counter()
        self._last = 0.0
        self._width = 0

    def update(self, text: str = "", failed: bool = False) -> None:
        """One more run finished (`failed`: with an error); `text` says which."""
        self.done += 1
        self.failed += bool(failed)
        if self.quiet:
            return
        i, n = self.done, self.total
        if not self.tty:
            if i == n or i % max(1, n // 10) == 0:
                print(f"[{i}/{n}] {text}".rstrip(), file=self.stream, flush=True)
            return
        now = time.perf_counter()
        if now - self._last < REDRAW_S and i < n:
            return
        self._last = now
        line = self.line(now - self.t0) + (f" {text}" if text else "")
        pad = max(0, self._width - len(line))
        self._width = len(line)
        self.stream.write("\r" + line + " " * pad + ("\n" if i == n else ""))
        self.stream.flush()

    def line(self, elapsed: float) -> str:
        """The bar after `elapsed` seconds, without the run's text."""
        i, n = self.done, self.total
        rate = i / elapsed if elapsed > 0 else 0.0
        eta = (n - i) / rate if rate > 0 else float("nan")
        fill = int(BAR_WIDTH * i / n) if n else BAR_WIDTH
        eta_s = "?" if math.isnan(eta) else f"{int(eta) // 60}:{int(eta) % 60:02d}"
        extra = f" ({self.failed} failed)" if self.failed else ""
        return f"[{'#' * fill}{'.' * (BAR_WIDTH - fill)}] {i}/{n} {100 * i / max(n, 1):3.0f}% {rate:.1f} runs/s ETA {eta_s}{extra}"

    def close(self) -> None:
        """End the terminal line if the runs stopped before the last one."""
        if not self.quiet and self.tty and 0 < self.done < self.total:
            self.stream.write("\n")
            self.stream.flush()
