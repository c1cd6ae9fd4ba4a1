"""What HiRemate(..., verbose=True) prints on stderr: each phase as it starts and ends, and while a
phase runs, the seconds elapsed (one updating line on a terminal, a plain line every 5 s otherwise)."""
import contextlib
import sys
import threading
import time


@contextlib.contextmanager
def phase(what, limit=None, enabled=True):
    if not enabled:
        yield
        return
    err = sys.stderr
    tty = err.isatty() if hasattr(err, "isatty") else False
    start = time.monotonic()
    stop = threading.Event()
    print(f"hiremate: {what}...", file=err, flush=True)

    def tick():
        k = 1
        while not stop.wait(max(0.0, start + k - time.monotonic())):
            line = f"hiremate: {what}: {k} s" + (f" of the {limit:g} s limit" if limit else "")
            if tty:
                err.write("\r" + line + "\033[K")
                err.flush()
            elif k % 5 == 0:
                print(line, file=err, flush=True)
            k += 1

    thread = threading.Thread(target=tick, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        if tty:
            err.write("\r\033[K")
        print(f"hiremate: {what}: {time.monotonic() - start:.1f} s", file=err, flush=True)
