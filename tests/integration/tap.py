"""tests/integration/tap.py: TAP lines and polling for the Python parts of the integration
tests (lib.sh puts this folder on PYTHONPATH). A script ends with sys.exit(tap.failed)."""
import time

failed = 0


def check(desc, cond, detail=""):
    """Prints "ok - desc" or "not ok - desc (detail)"; a failure sets tap.failed."""
    global failed
    print(("ok - " if cond else "not ok - ") + desc + (f" ({detail})" if detail != "" else ""))
    if not cond:
        failed = 1


def wait(pred, secs):
    """pred()'s first true value within secs (polled every 50 ms), else its last value."""
    end = time.time() + secs
    while time.time() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.05)
    return pred()
