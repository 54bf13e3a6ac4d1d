"""One sign-in, a token per API (`authflow token --resource`, `request`,
`status`), against `authflow provider serve` with two demo APIs, each of
which accepts only tokens whose `aud` is its own URL (and `api.read`).

After one browser sign-in at the provider (not tied to an API), `token
--resource URL` prints a token for that API, got with the profile's refresh
token and the RFC 8707 `resource` parameter and kept in the profile; the
rotated refresh token becomes the profile's own. Parallel processes asking
for one API print one token. `request URL` sends each API its own token
(the most specific kept resource that serves the URL); `status` lists the
kept tokens without their values; `logout` revokes them all (RFC 7009)."""

import base64
import json
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from cli_fixtures import CLI, NEEDS_CLI_AND_CHROMIUM, serve_provider, stop_provider

pytestmark = NEEDS_CLI_AND_CHROMIUM


@pytest.fixture(scope="module")
def provider(tmp_path_factory):
    config = tmp_path_factory.mktemp("provider") / "provider.json"
    config.write_text(json.dumps({
        "sign_in": "login_page",
        "protected_resources": [{"resource": "/api"}, {"resource": "/billing"}],
    }))
    served = serve_provider(config)
    served["api"], served["billing"] = served["issuer"] + "/api", served["issuer"] + "/billing"
    yield served
    stop_provider(served)


def claims(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def signed_in(provider, tmp_path):
    cli = CLI(tmp_path)
    cli.ok("login", "--issuer", provider["issuer"], "--client-id", "authflow-demo", "--scope", "openid offline_access api.read",
           "--json")
    assert cli.browsers() == 1
    return cli


def test_a_token_per_api_from_one_sign_in(provider, tmp_path):
    cli = signed_in(provider, tmp_path)
    own = cli.ok("token").stdout.strip()
    refresh_before = cli.profile()["credentials"]["token"]["refreshToken"]
    api = cli.ok("token", "--resource", provider["api"]).stdout.strip()
    billing = cli.ok("token", "--resource", provider["billing"]).stdout.strip()
    assert claims(api)["aud"] == provider["api"]
    assert claims(billing)["aud"] == provider["billing"]
    assert len({own, api, billing}) == 3
    # Kept: the same token again, no browser; the profile's own token is untouched, its refresh token rotated.
    assert cli.ok("token", "--resource", provider["api"]).stdout.strip() == api
    # --force replaces the kept token, and the new one is kept.
    forced = cli.ok("token", "--resource", provider["api"], "--force").stdout.strip()
    assert forced != api and claims(forced)["aud"] == provider["api"]
    assert cli.ok("token", "--resource", provider["api"]).stdout.strip() == forced
    assert cli.ok("token").stdout.strip() == own
    profile = cli.profile()
    assert profile["credentials"]["token"]["refreshToken"] != refresh_before
    kept = {token["resource"]["url"]: (token["grant"], token["token"]["accessToken"]) for token in profile["resource_tokens"]}
    assert kept == {provider["api"]: ("refresh_token", forced), provider["billing"]: ("refresh_token", billing)}
    assert len(profile["resource_tokens"]) == 2
    assert all("refreshToken" not in kept["token"] for kept in profile["resource_tokens"])
    # The profile's refresh token still works after every rotation.
    assert cli.ok("token", "--force").stdout.strip() != own
    assert cli.browsers() == 1


def test_request_sends_each_api_its_own_token_and_status_lists_them(provider, tmp_path):
    cli = signed_in(provider, tmp_path)
    api = cli.ok("token", "--resource", provider["api"]).stdout.strip()
    billing = cli.ok("token", "--resource", provider["billing"]).stdout.strip()
    # Each API takes only a token for itself: the other's is refused.
    for url, token in ((provider["api"], billing), (provider["billing"], api)):
        refused = requests.get(url, headers={"Authorization": f"Bearer {token}"}, timeout=10)
        assert refused.status_code == 401, (refused.text, claims(token), url)
    for url in (provider["api"], provider["billing"]):
        answer = json.loads(cli.ok("request", url).stdout)
        assert answer["resource"] == url and answer["sub"] == "demo"
    status = json.loads(cli.ok("status", "--json").stdout)
    assert [(kept["resource"], kept["grant"], kept["expired"]) for kept in status["resource_tokens"]] == [
        (provider["api"], "refresh_token", False), (provider["billing"], "refresh_token", False)]
    human = cli.ok("status")
    assert "tokens for other resources:" in human.stdout and provider["billing"] in human.stdout
    for text in (json.dumps(status), human.stdout, human.stderr):
        assert api not in text and billing not in text
    assert cli.browsers() == 1


def test_parallel_processes_print_one_token_per_api(provider, tmp_path):
    cli = signed_in(provider, tmp_path)
    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(lambda _: cli.run("token", "--resource", provider["billing"]), range(6)))
    assert all(result.returncode == 0 for result in results), [result.stderr for result in results]
    assert len({result.stdout.strip() for result in results}) == 1
    # One refresh for the six: a second use of a rotated refresh token would have revoked the grant.
    assert cli.ok("token", "--force").stdout.strip()


def introspect(provider, token):
    """RFC 7662 at the provider, as its confidential demo client: the API checks a JWT on its own, so a revoked
    one stays usable there until it expires; the provider's record says whether it was revoked."""
    answer = requests.post(provider["issuer"] + "/introspect", data={"token": token},
                           auth=("authflow-demo-backend", "demo-secret"), timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()["active"]


def test_logout_revokes_every_api_token(provider, tmp_path):
    cli = signed_in(provider, tmp_path)
    api = cli.ok("token", "--resource", provider["api"]).stdout.strip()
    billing = cli.ok("token", "--resource", provider["billing"]).stdout.strip()
    assert introspect(provider, api) and introspect(provider, billing)
    cli.ok("logout")
    assert not introspect(provider, api) and not introspect(provider, billing)
    assert cli.profile().get("resource_tokens", []) == []
    result = cli.run("token", "--resource", provider["api"])
    assert result.returncode != 0 and api not in result.stdout


def test_resource_options_are_checked(provider, tmp_path):
    cli = CLI(tmp_path)
    result = cli.run("token", "--exchange")
    assert result.returncode == 2 and "--exchange, --audience and --scope go with --resource" in result.stderr
    result = cli.run("token", "--resource", "not a url")
    assert result.returncode == 2 and "--resource takes an absolute URL" in result.stderr
    result = cli.run("token", "--resource", "http://api.example.com/x")
    assert result.returncode == 2 and "--resource:" in result.stderr
