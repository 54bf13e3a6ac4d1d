"""Shared fixtures: the interop servers' config.

If AUTHFLOW_INTEROP_CONFIG names an existing config (written by
``servers.py start``), the running servers are used; otherwise the servers are
started for this pytest session and stopped at its end.
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# The CLI keeps credentials in the desktop keyring when a Secret Service runs
# on the session bus. The tests read and edit profile files, so they run
# without the desktop's bus; the keyring tests start a private one
# (keyring_fixtures.py).
os.environ.pop("DBUS_SESSION_BUS_ADDRESS", None)

from interop_helpers import load_config, start_servers_for_tests, stop_servers_for_tests  # noqa: E402

SERVER_NAMES = ["dot", "authlib"]


@pytest.fixture(scope="session")
def interop_config_path(tmp_path_factory):
    path = os.environ.get("AUTHFLOW_INTEROP_CONFIG")
    if path:
        if not os.path.isfile(path):
            pytest.fail(f"AUTHFLOW_INTEROP_CONFIG={path} does not exist (run servers.py start)")
        yield os.path.abspath(path)
        return
    config = start_servers_for_tests(str(tmp_path_factory.mktemp("interop")))
    try:
        yield config
    finally:
        stop_servers_for_tests(config)


@pytest.fixture(scope="session")
def interop_config(interop_config_path):
    return load_config(interop_config_path)


@pytest.fixture(params=SERVER_NAMES)
def server_name(request):
    return request.param


@pytest.fixture
def server(interop_config, server_name):
    return interop_config["servers"][server_name]
