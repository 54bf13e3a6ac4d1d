"""`authflow login --resource URL` end to end against the embedded provider
serving a protected demo API (`authflow provider serve --resource /api`):
nothing but the API's URL is given; headless Chromium signs in on the
provider's login page. Then `request` (the token's audience must be the API,
so it works only when the RFC 8707 resource was sent), a forced refresh,
`status`, step-up on `insufficient_scope`, the registration reused by a
second login, and registered again after the provider forgot it (SIGUSR1)."""

import json
import signal
import time

import pytest
import requests

from cli_fixtures import CLI, NEEDS_CLI_AND_CHROMIUM, serve_provider, stop_provider

pytestmark = NEEDS_CLI_AND_CHROMIUM


@pytest.fixture(scope="module")
def provider(tmp_path_factory):
    config = tmp_path_factory.mktemp("provider") / "provider.json"
    config.write_text(json.dumps({"sign_in": "login_page"}))
    served = serve_provider(config, "--resource", "/api")
    yield served
    stop_provider(served)


def test_login_by_the_apis_url_alone_then_request_refresh_and_status(provider, tmp_path):
    cli = CLI(tmp_path)
    summary = json.loads(cli.ok("login", "--resource", provider["api"], "--json").stdout)
    assert summary["resource"] == provider["api"] and summary["issuer"] == provider["issuer"]
    assert "api.read" in summary["scope"].split()
    profile = cli.profile()
    registration = profile["registration"]
    assert registration["clientID"] == profile["client_id"] and registration["issuer"] == provider["issuer"]
    assert profile["resource"]["url"] == provider["api"]

    # The API accepts the sign-in's token as it is (no refresh) only when its audience is the API
    # (the RFC 8707 resource was sent).
    answer = json.loads(cli.ok("request", provider["api"]).stdout)
    assert answer["client_id"] == profile["client_id"] and answer["resource"] == provider["api"]
    assert cli.profile()["credentials"] == profile["credentials"]

    # A refresh keeps the resource: the new token is for the API too.
    before = cli.profile()["credentials"]
    cli.ok("token", "--force")
    assert cli.profile()["credentials"] != before
    assert json.loads(cli.ok("request", provider["api"]).stdout)["resource"] == provider["api"]

    status = json.loads(cli.ok("status", "--json").stdout)
    assert status["resource"] == provider["api"]
    assert f"resource: {provider['api']}" in cli.ok("status").stdout

    # The token goes to the API's origin only.
    elsewhere = cli.run("request", "--timeout", "3", "http://localhost:9/api")
    assert elsewhere.returncode == 1 and "would carry one elsewhere" in elsewhere.stderr, elsewhere.stderr

    # A second login reuses the registration: same client, no new registration.
    cli.ok("login", "--resource", provider["api"], "--json")
    assert cli.profile()["client_id"] == profile["client_id"]
    assert cli.profile()["registration"] == registration
    assert cli.browsers() == 2


def test_request_steps_up_once_on_insufficient_scope(provider, tmp_path):
    cli = CLI(tmp_path)
    summary = json.loads(cli.ok("login", "--resource", provider["api"], "--scope", "openid", "--json").stdout)
    assert "api.read" not in summary["scope"].split()
    result = cli.ok("request", provider["api"])
    assert json.loads(result.stdout)["resource"] == provider["api"]
    assert "needs more scopes" in result.stderr
    assert cli.browsers() == 2
    assert cli.profile()["scopes"] == ["openid", "api.read"]
    # Now granted: no further sign-in.
    cli.ok("request", provider["api"])
    assert cli.browsers() == 2


def forgotten(provider, client_id):
    """Waits (bounded) until the provider's PAR endpoint no longer knows `client_id`."""
    metadata = requests.get(provider["issuer"] + "/.well-known/openid-configuration", timeout=10).json()
    for _ in range(100):
        answer = requests.post(metadata["pushed_authorization_request_endpoint"], timeout=10,
                               data={"client_id": client_id, "response_type": "code", "redirect_uri": "http://127.0.0.1/callback",
                                     "code_challenge": "x" * 43, "code_challenge_method": "S256"})
        if answer.status_code in (400, 401) and answer.json().get("error") == "invalid_client":
            return
        time.sleep(0.05)
    pytest.fail("the provider did not forget the client")


def test_a_forgotten_registration_is_replaced_once(provider, tmp_path):
    cli = CLI(tmp_path)
    cli.ok("login", "--resource", provider["api"], "--json")
    first = cli.profile()["client_id"]
    provider["process"].send_signal(signal.SIGUSR1)
    forgotten(provider, first)
    result = cli.ok("login", "--resource", provider["api"], "--json")
    assert "registered again" in result.stderr
    second = cli.profile()["client_id"]
    assert second != first and cli.profile()["registration"]["clientID"] == second
    assert json.loads(cli.ok("request", provider["api"]).stdout)["client_id"] == second
