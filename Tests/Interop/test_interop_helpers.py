"""The interop helpers that bound the tests' own waits."""

import subprocess
import sys

from interop_helpers import read_until_ready


def spawn(script):
    return subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)


def test_ready_line_ends_the_read():
    process = spawn("print('issuer: x', flush=True); print('ready', flush=True); print('later', flush=True)")
    try:
        assert read_until_ready(process, timeout=10) == (["issuer: x", "ready"], True)
    finally:
        process.wait(timeout=10)


def test_a_process_that_exits_without_ready_is_not_ready():
    process = spawn("print('starting', flush=True)")
    assert read_until_ready(process, timeout=10) == (["starting"], False)
    process.wait(timeout=10)


def test_a_process_that_hangs_without_printing_is_given_up_on_time():
    # An unbounded read would wait the hour out here.
    process = spawn("import time; print('starting', flush=True); time.sleep(3600)")
    try:
        assert read_until_ready(process, timeout=1) == (["starting"], False)
        assert process.poll() is None, "the process still runs: the read gave up, it did not see an exit"
    finally:
        process.kill()
        process.wait(timeout=10)
