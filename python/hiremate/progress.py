"""What HiRemate(..., verbose=True) prints on stderr: each phase as it starts and ends, and while a
phase runs a status line about once a second: the seconds elapsed (of the time limit when planning)
and, when planning, the planner's own phase, the best plan so far and its bound (as overheads over
the keep-all step time). On a terminal one updating line; in a log (a file, a pipe) plain lines,
never a carriage return or an escape code: one when the status changed and one every 5 s."""
import contextlib
import sys
import threading
import time


def verbosity(verbose):
    """``verbose`` as a level: ``False``/``0`` nothing, ``True``/``1`` the phases and a status line,
    ``2`` also the solvers' own log and CBC's (as ``hiremate solve -vv``).

    Raises:
        BadInputError: anything else.
    """
    from .errors import BadInputError
    if isinstance(verbose, bool) or verbose in (0, 1, 2):
        return int(verbose)
    raise BadInputError(f"verbose must be True, False, 0, 1 or 2 (2: also the solvers' and CBC's logs), "
                        f"not {verbose!r}")


def status_text(progress):
    """The planner's status from ``Session.progress()`` (phase, best, bound, keep-all time): ``"; top:
    hilp (...); best so far +2.31 % overhead; bound +1.02 %"``, or ``""``."""
    phase, best, bound, baseline = progress

    def overhead(t):
        return f"{100.0 * (t - baseline) / baseline:+.2f} %" if baseline else f"{t:.6g}"

    out = f"; {phase}" if phase else ""
    if best is not None:
        out += f"; best so far {overhead(best)}" + (" overhead" if baseline else "")
    if bound is not None and (best is None or bound <= best):
        out += f"; bound {overhead(bound)}"
    return out


@contextlib.contextmanager
def phase(what, limit=None, enabled=True, status=None, ticker=True):
    """Prints ``what`` as it starts and with its seconds as it ends; while it runs, a status line
    (``status``: a callable giving more text, see :func:`status_text`). ``ticker=False``: no status
    line (the solvers print their own log)."""
    if not enabled:
        yield
        return
    err = sys.stderr
    tty = err.isatty() if hasattr(err, "isatty") else False
    start = time.monotonic()
    stop = threading.Event()
    print(f"hiremate: {what}...", file=err, flush=True)

    def tick():
        k, last = 1, ""
        while not stop.wait(max(0.0, start + k - time.monotonic())):
            extra = status() if status is not None else ""
            line = f"hiremate: {what}: {k} s" + (f" of the {limit:g} s limit" if limit else "") + extra
            if tty:
                err.write("\r" + line + "\033[K")
                err.flush()
            elif k % 5 == 0 or extra != last:
                print(line, file=err, flush=True)
            last = extra
            k += 1

    thread = threading.Thread(target=tick, daemon=True)
    if ticker:
        thread.start()
    try:
        yield
    finally:
        stop.set()
        if ticker:
            thread.join()
        if tty and ticker:
            err.write("\r\033[K")
        print(f"hiremate: {what}: {time.monotonic() - start:.1f} s", file=err, flush=True)
