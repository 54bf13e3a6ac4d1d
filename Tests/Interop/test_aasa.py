"""`authflow aasa`: the apple-app-site-association file for https callbacks.

Needs AUTHFLOW_BIN (the built `authflow` executable); no servers.
"""
import json
import os
import subprocess

import pytest

AUTHFLOW_BIN = os.environ.get("AUTHFLOW_BIN")
pytestmark = pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set")


def run(*args):
    return subprocess.run([AUTHFLOW_BIN, "aasa", *args], capture_output=True, text=True, timeout=60)


def test_prints_the_association_file():
    result = run("--app-id", "ABCDE12345.com.example.app", "--path", "/oauth/callback")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document == {
        "applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"],
                                  "components": [{"/": "/oauth/callback"}]}]},
        "webcredentials": {"apps": ["ABCDE12345.com.example.app"]},
    }


def test_several_apps_and_paths():
    result = run("--app-id", "ABCDE12345.com.example.app", "--app-id", "ABCDE12345.com.example.app.widget",
                 "--path", "/a", "--path", "/b")
    assert result.returncode == 0, result.stderr
    detail = json.loads(result.stdout)["applinks"]["details"][0]
    assert detail["appIDs"] == ["ABCDE12345.com.example.app", "ABCDE12345.com.example.app.widget"]
    assert detail["components"] == [{"/": "/a"}, {"/": "/b"}]


@pytest.mark.parametrize("args, text", [
    (["--app-id", "com.example.app", "--path", "/cb"], "is not an app ID"),
    (["--app-id", "ABCDE12345.com.example.app", "--path", "cb"], "is not a callback path"),
    (["--app-id", "ABCDE12345.com.example.app"], "at least one callback path"),
])
def test_bad_input_is_a_configuration_error(args, text):
    result = run(*args)
    assert result.returncode == 1
    assert result.stdout == ""
    assert text in result.stderr
