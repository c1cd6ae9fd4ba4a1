"""Measuring a step: peak CPU tensor memory (through the core's counting allocator) and time."""
import time

from . import _hiremate


class measure:
    """A context manager: `peak` is the most CPU tensor bytes alive inside the block above those
    alive at its start, `seconds` its wall time.

        with hiremate.measure() as m:
            loss = wrapped(*inputs); loss.backward()
        print(m.peak, m.seconds)

    It counts tensors allocated through torch's CPU allocator once hiremate's counting allocator is
    installed (by the first measure() or HiRemate()); the CPU only."""

    def __init__(self):
        self.peak = 0
        self.seconds = 0.0
        self._start = 0
        self._t0 = 0.0

    def __enter__(self):
        self._start = _hiremate.memory_current()
        _hiremate.memory_reset_peak()
        self._t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self._t0
        self.peak = _hiremate.memory_peak() - self._start
        return False
