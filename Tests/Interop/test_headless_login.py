"""`authflow login` where no browser will open: an SSH session without a
display and without $BROWSER. The device grant when the provider offers it
for the client; otherwise the printed URL and the redirected URL pasted back
on stdin, validated like the loopback callback (state, iss, single use);
`--no-browser` accepts the paste even with a display. The embedded provider
signs in automatically; the "browser" here is the test fetching the
authorization URL without following the redirect."""

import json
import subprocess
import urllib.parse
import urllib.request
from urllib.parse import urlencode

import pytest
import requests

from credential_fixtures import AUTHFLOW_BIN, SCOPE, describe, provider  # noqa: F401

pytestmark = pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set")


def headless_env(tmp_path, **extra):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "SSH_CONNECTION": "192.0.2.1 50000 192.0.2.2 22"}
    env.update(extra)
    return env


def start_login(provider, env, client, *extra):
    return subprocess.Popen([AUTHFLOW_BIN, "login", "--issuer", provider["issuer"], "--client-id", client, "--scope", SCOPE,
                             "--browser-timeout", "20", "--json", *extra],
                            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def read_until(process, predicate, seen):
    for line in process.stderr:
        seen.append(line)
        if predicate(line):
            return line.strip()
    pytest.fail("login ended before: " + "".join(seen))


def authorization_url(process, seen):
    return read_until(process, lambda line: line.startswith("http") and "code_challenge=" in line, seen)


def redirect_of(url):
    answer = requests.get(url, allow_redirects=False, timeout=10)
    assert answer.status_code == 302, answer.text
    return answer.headers["Location"]


def finish(process, seen, timeout=60):
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    finally:
        if process.poll() is None:
            process.kill()
    return process.returncode, stdout, "".join(seen) + stderr


def approve_device_sign_in(provider, process):
    """Reads the user code the login prints, approves it on the provider's device page, and waits for the login."""
    seen = []
    read_until(process, lambda line: "enter the code" in line, seen)
    code = read_until(process, lambda line: line.strip() != "", seen)
    approval = urllib.request.Request(provider["issuer"] + "/device", method="POST",
                                      data=urlencode({"user_code": code, "decision": "allow"}).encode())
    with urllib.request.urlopen(approval, timeout=10) as answer:
        assert answer.status == 200
    return finish(process, seen)


def test_over_ssh_the_device_grant_is_used_when_the_provider_offers_it(provider, tmp_path):
    process = start_login(provider, headless_env(tmp_path), "cli-device")
    returncode, stdout, stderr = approve_device_sign_in(provider, process)
    assert returncode == 0, stderr
    assert json.loads(stdout)["subject"] == "alice-1"
    assert "No browser will open here (this is an SSH session): sign in on another device." in stderr


def test_the_redirected_url_is_pasted_back_when_the_device_grant_is_refused(provider, tmp_path):
    process = start_login(provider, headless_env(tmp_path), "cli-public")
    seen = []
    url = authorization_url(process, seen)
    location = redirect_of(url)
    process.stdin.write("not a url\n" + location + "\n")
    process.stdin.flush()
    returncode, stdout, stderr = finish(process, seen)
    assert returncode == 0, stderr
    assert json.loads(stdout)["subject"] == "alice-1"
    assert "the provider refused the device grant for this client" in stderr
    assert "That is not the address this sign-in was sent back to" in stderr
    # Single use: the listener closed once the pasted redirect was taken.
    with pytest.raises(requests.exceptions.ConnectionError):
        requests.get(location, timeout=5)


def test_a_pasted_redirect_from_another_issuer_is_refused(provider, tmp_path):
    process = start_login(provider, headless_env(tmp_path, DISPLAY=":0", BROWSER="true"), "cli-public", "--no-browser")
    seen = []
    location = redirect_of(authorization_url(process, seen))
    parts = urllib.parse.urlsplit(location)
    query = [(k, "https://evil.example.com" if k == "iss" else v) for k, v in urllib.parse.parse_qsl(parts.query)]
    forged = urllib.parse.urlunsplit(parts._replace(query=urlencode(query)))
    process.stdin.write(forged + "\n")
    process.stdin.flush()
    returncode, stdout, stderr = finish(process, seen)
    assert returncode == 4, stderr
    error = json.loads(stdout)["error"]
    assert error["category"] == "issuer_mismatch"
    assert error["description"] == f"callback comes from issuer https://evil.example.com, expected {provider['issuer']}"


def test_a_pasted_url_of_another_sign_in_is_ignored_until_the_timeout(provider, tmp_path):
    process = subprocess.Popen([AUTHFLOW_BIN, "login", "--issuer", provider["issuer"], "--client-id", "cli-public",
                                "--scope", SCOPE, "--browser-timeout", "3", "--json", "--no-browser"],
                               env=headless_env(tmp_path, DISPLAY=":0"), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    seen = []
    location = redirect_of(authorization_url(process, seen))
    other = location.replace("state=", "state=x")
    process.stdin.write(other + "\n")
    process.stdin.flush()
    returncode, stdout, stderr = finish(process, seen)
    assert returncode == 5, describe(subprocess.CompletedProcess([], returncode, stdout, stderr))
    assert json.loads(stdout)["error"]["category"] == "timeout"
    assert "That is not the address this sign-in was sent back to" in stderr


def test_no_browser_uses_the_device_grant_when_the_provider_offers_it_even_with_a_display(provider, tmp_path):
    env = headless_env(tmp_path, DISPLAY=":0", BROWSER="true")
    env.pop("SSH_CONNECTION")
    process = start_login(provider, env, "cli-device", "--no-browser")
    returncode, stdout, stderr = approve_device_sign_in(provider, process)
    assert returncode == 0, stderr
    assert json.loads(stdout)["subject"] == "alice-1"
    assert "No browser will open here (--no-browser): sign in on another device." in stderr
