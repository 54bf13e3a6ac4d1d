"""OpenID CIBA (Client-Initiated Backchannel Authentication, poll mode) end
to end: `authflow login --ciba --login-hint USER` against `authflow provider
serve`, whose approval page stands in for the user's own device. The
terminal shows the binding message; no browser opens; only the user the hint
named can approve; a denial is exit 3 with access_denied; the client secret
never reaches the output."""

import json
import os
import re
import subprocess
import time
import urllib.parse
import urllib.request

import pytest

from cli_fixtures import CLI, serve_provider, stop_provider

AUTHFLOW_BIN = os.environ.get("AUTHFLOW_BIN")
pytestmark = pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set")

SECRET = "ciba-secret-4d0b6a"


@pytest.fixture(scope="module")
def provider(tmp_path_factory):
    config = tmp_path_factory.mktemp("provider") / "provider.json"
    config.write_text(json.dumps({
        "sign_in": "login_page",
        "clients": [{"client_id": "ciba-cli", "client_secret": SECRET, "token_endpoint_auth_method": "client_secret_basic",
                     "grant_types": ["urn:openid:params:grant-type:ciba", "refresh_token"],
                     "scope": "openid profile email offline_access"}],
        "users": [{"sub": "alice", "password": "alice-pw", "claims": {"email": "alice@example.com"}},
                  {"sub": "bob", "password": "bob-pw"}],
        "lifetimes": {"device_polling_interval": 1},
        "protected_resources": [{"resource": "/api"}],
    }))
    served = serve_provider(config)
    yield served
    stop_provider(served)


def start_login(cli, provider, *extra):
    return subprocess.Popen(
        [AUTHFLOW_BIN, "login", "--issuer", provider["issuer"], "--client-id", "ciba-cli", "--client-secret-env", "CIBA_SECRET",
         "--ciba", "--scope", "openid email", "--json", *extra],
        env=dict(cli.env, CIBA_SECRET=SECRET), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        stdin=subprocess.DEVNULL)


def pending_request(provider):
    """The approval page's handle of the one waiting request (the other device's view)."""
    for _ in range(100):
        page = urllib.request.urlopen(provider["issuer"] + "/ciba", timeout=5).read().decode()
        found = re.search(r"request=([A-Za-z0-9_-]+)", page)
        if found:
            return found.group(1)
        time.sleep(0.1)
    pytest.fail("no backchannel request reached the approval page")


def decide(provider, handle, decision, username, password):
    body = urllib.parse.urlencode({"request": handle, "decision": decision, "username": username,
                                   "password": password}).encode()
    try:
        with urllib.request.urlopen(urllib.request.Request(provider["issuer"] + "/ciba", data=body), timeout=5) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_the_user_approves_on_their_device_and_the_terminal_signs_in(provider, tmp_path):
    cli = CLI(tmp_path)
    login = start_login(cli, provider, "--login-hint", "alice@example.com", "--binding-message", "Desk 4 - 7261")
    try:
        handle = pending_request(provider)
        page = urllib.request.urlopen(f"{provider['issuer']}/ciba?request={handle}", timeout=5).read().decode()
        assert "Desk 4 - 7261" in page
        # Another user cannot approve alice's sign-in.
        status, _ = decide(provider, handle, "allow", "bob", "bob-pw")
        assert status == 403
        status, _ = decide(provider, handle, "allow", "alice", "alice-pw")
        assert status == 200
        stdout, stderr = login.communicate(timeout=60)
    finally:
        login.kill()
    assert login.returncode == 0, stderr
    result = json.loads(stdout)
    assert result["subject"] == "alice" and result["has_refresh_token"] is True
    assert "Approve only if it shows:" in stderr and "Desk 4 - 7261" in stderr
    assert cli.browsers() == 0
    assert SECRET not in stdout + stderr
    # The profile refreshes like any other.
    token = cli.ok("token")
    assert token.stdout.strip()


def test_a_denial_is_access_denied_and_a_generated_binding_code_is_shown(provider, tmp_path):
    cli = CLI(tmp_path)
    login = start_login(cli, provider, "--login-hint", "bob")
    try:
        handle = pending_request(provider)
        page = urllib.request.urlopen(f"{provider['issuer']}/ciba?request={handle}", timeout=5).read().decode()
        code = re.search(r'id="binding-message">(AF-\d{4})<', page)
        assert code, page
        status, _ = decide(provider, handle, "deny", "bob", "bob-pw")
        assert status == 200
        stdout, stderr = login.communicate(timeout=60)
    finally:
        login.kill()
    assert login.returncode == 3, stderr
    error = json.loads(stdout)["error"]
    assert error["category"] == "oauth_error" and error["oauth_error"] == "access_denied"
    assert code.group(1) in stderr


def test_an_unknown_user_is_refused_before_any_wait(provider, tmp_path):
    cli = CLI(tmp_path)
    login = start_login(cli, provider, "--login-hint", "nobody")
    stdout, stderr = login.communicate(timeout=60)
    assert login.returncode == 3, stderr
    assert json.loads(stdout)["error"]["oauth_error"] == "unknown_user_id"


def test_ciba_needs_a_confidential_client_and_a_hint(provider, tmp_path):
    cli = CLI(tmp_path)
    public = cli.run("login", "--issuer", provider["issuer"], "--client-id", "ciba-cli", "--ciba", "--login-hint", "alice")
    assert public.returncode == 2 and "--ciba needs a confidential client" in public.stderr
    no_hint = cli.run("login", "--issuer", provider["issuer"], "--client-id", "ciba-cli", "--client-secret", "x", "--ciba")
    assert no_hint.returncode == 2 and "--ciba names the user with one of --login-hint" in no_hint.stderr
    stray = cli.run("login", "--issuer", provider["issuer"], "--client-id", "ciba-cli", "--login-hint", "alice")
    assert stray.returncode == 2 and "go with --ciba" in stray.stderr
