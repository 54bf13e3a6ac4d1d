"""gunicorn entry point for the Django OAuth Toolkit interop server.

    TOKBENCH_PORT=P TOKBENCH_DATA_DIR=D gunicorn --preload ... wsgi_dot:application

Runs Tests/Interop/dot_server/run.py's own set-up unchanged (fresh sqlite
database, RSA key, user, clients, fixtures JSON in D) but, instead of Django's
development server that run.py ends with, hands the WSGI application to
gunicorn. One setting differs from the interop server: sqlite transactions
are IMMEDIATE (see below). Use --preload so that the set-up runs once, in the master, before
the workers fork.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
INTEROP = os.path.join(HERE, "..", "..", "Tests", "Interop")
sys.path[:0] = [os.path.join(INTEROP, "dot_server"), INTEROP]

import django.core.servers.basehttp as basehttp  # noqa: E402

_captured = {}


def _capture_instead_of_serving(addr, port, wsgi_handler, **kwargs):
    _captured["application"] = wsgi_handler


basehttp.run = _capture_instead_of_serving  # run.py does `from ... import run` after this

# With the committed settings, concurrent token requests hit sqlite's
# "database is locked": Django opens deferred transactions, and sqlite fails a
# read lock's upgrade to a write lock at once instead of waiting. Django's
# documented fix for concurrent writers is transaction_mode=IMMEDIATE. Set it
# (with a 20 s busy timeout and WAL, so that readers do not wait for writers)
# on the settings module after run.py has put its environment in place and
# before django.setup() reads it.
import django  # noqa: E402

_real_setup = django.setup


def _setup_with_immediate_transactions(*args, **kwargs):
    import interop_dot.settings as settings

    settings.DATABASES["default"].setdefault("OPTIONS", {}).update(
        transaction_mode="IMMEDIATE", timeout=20, init_command="PRAGMA journal_mode=WAL;")
    return _real_setup(*args, **kwargs)


django.setup = _setup_with_immediate_transactions

import run as dot_run  # noqa: E402  (Tests/Interop/dot_server/run.py)

_data_dir = os.environ["TOKBENCH_DATA_DIR"]
sys.argv = [
    "run.py", "--port", os.environ["TOKBENCH_PORT"],
    "--data-dir", _data_dir,
    "--fixtures-out", os.path.join(_data_dir, "fixtures.json"),
]
dot_run.main()

from django.db import connections  # noqa: E402

connections.close_all()  # no sqlite handle crosses the fork into the workers
application = _captured["application"]
