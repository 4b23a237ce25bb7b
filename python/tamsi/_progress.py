"""A progress bar on the terminal for long sweeps and long ``Simulator.run`` calls.

Drawn on stderr only when stderr is a terminal, and only once the work has taken longer than ``Bar.DELAY`` seconds
(short runs print nothing); redrawn at most every ``Bar.INTERVAL`` seconds; cleared when done.
"""

import shutil
import sys
import time
from typing import Optional, TextIO


class Bar:
    """``[#####-----]  42% 0.21/0.5 s simulated, 3.2 s`` on one line of ``stream``, redrawn in place."""

    DELAY = 1.0  # s of wall time before the bar first shows
    INTERVAL = 0.1  # s between redraws

    def __init__(self, total: float, unit: str, stream: TextIO):
        self.total, self.unit, self.stream = total, unit, stream
        self.start = time.monotonic()
        self.drawn_at: Optional[float] = None

    def update(self, done: float) -> None:
        """Shows ``done`` of ``total`` (in ``unit``)."""
        now = time.monotonic()
        if now - self.start < self.DELAY or (self.drawn_at is not None and now - self.drawn_at < self.INTERVAL):
            return
        self.drawn_at = now
        fraction = min(max(done / self.total, 0.0), 1.0) if self.total > 0 else 1.0
        text = f" {100 * fraction:3.0f}% {done:.4g}/{self.total:.4g} {self.unit}, {now - self.start:.1f} s"
        width = max(10, min(40, shutil.get_terminal_size().columns - len(text) - 3))
        filled = int(round(width * fraction))
        self.stream.write("\r[" + "#" * filled + "-" * (width - filled) + "]" + text)
        self.stream.flush()

    def clear(self) -> None:
        """Clears the bar's line (when it was drawn), e.g. before other output or at the end; the next update draws
        it again."""
        if self.drawn_at is not None:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.drawn_at = None


def terminal_bar(total: float, unit: str) -> Optional[Bar]:
    """A Bar on stderr for ``total`` ``unit`` of work when stderr is a terminal; None otherwise."""
    stream = sys.stderr
    return Bar(total, unit, stream) if stream is not None and stream.isatty() else None
