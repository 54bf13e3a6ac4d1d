"""gunicorn entry point for the Authlib interop server.

    TOKBENCH_PORT=P gunicorn --workers 1 ... wsgi_authlib:application

Builds Tests/Interop/authlib_server/app.py's Flask application with its own
create_app(port), unchanged. Its store is in process memory, so it can only
run as one worker process (threads are fine: the store has a lock).

With AUTHLIB_ID_TOKEN_ALG=ES256 in the environment (run.sh --es256, row
authlib-es256-gunicorn) the app signs its ID tokens with ES256 and a fresh
P-256 key instead of RS256; app.py reads that variable itself.
"""

import importlib.util
import os

HERE = os.path.dirname(os.path.abspath(__file__))
_path = os.path.join(HERE, "..", "..", "Tests", "Interop", "authlib_server", "app.py")
_spec = importlib.util.spec_from_file_location("authlib_interop_app", _path)
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)

application = _module.create_app(int(os.environ["TOKBENCH_PORT"]))
