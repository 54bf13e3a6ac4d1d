"""The provider guide (docs/providers.md) run against the provider fixtures.

For each provider: the guide's `authflow login` command against a fixture
server that reproduces the provider's documented behaviour (see
provider_fixtures/profiles.py for the facts and their sources), then what the
guide promises: the subject, the scopes, userinfo, refresh (`authflow token`
on a token inside the refresh leeway) and logout's revocation.

Needs AUTHFLOW_BIN (skipped otherwise); needs no other server.
"""

import time
import json
import os
import subprocess
import sys

import pytest

from provider_fixtures.profiles import ENTRA_TENANT, PROFILES
from provider_fixtures.server import ProviderFixture

AUTHFLOW_BIN = os.environ.get("AUTHFLOW_BIN")
BROWSER = f"{sys.executable} {os.path.join(os.path.dirname(os.path.abspath(__file__)), 'provider_fixtures', 'browser.py')}"
TIMEOUT = 60

pytestmark = pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set")


class Runner:
    def __init__(self, tmp_path, profile):
        self.env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path), BROWSER=BROWSER,
                        PROVIDER_SECRET=profile.get("client_secret", ""))

    def run(self, *args):
        return subprocess.run([AUTHFLOW_BIN, *args], env=self.env, capture_output=True, text=True, timeout=TIMEOUT)


def login_args(fixture, command, *extra):
    return ["login", *[a.replace("{base}", fixture.base) for a in command], "--browser-timeout", "20", *extra]


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_guide_command(name, tmp_path):
    profile = PROFILES[name]
    expect = profile["expect"]
    with ProviderFixture(profile) as fixture:
        cli = Runner(tmp_path, profile)
        result = cli.run(*login_args(fixture, profile["command"], "--json"))
        assert result.returncode == 0, result.stderr
        summary = json.loads(result.stdout)
        assert summary["subject"] == expect["subject"]
        assert summary["scope"].split() == expect["scopes"]
        if "stderr" in expect:
            assert expect["stderr"] in result.stderr
        assert fixture.kinds().count("token") == 1

        userinfo = cli.run("userinfo", "--json")
        if expect["userinfo"]:
            assert userinfo.returncode == 0, userinfo.stderr
            assert json.loads(userinfo.stdout)["sub"] == profile["subject"]
        else:
            assert userinfo.returncode == 1
            error = json.loads(userinfo.stdout)["error"]
            assert error["category"] == "configuration"
            assert error["description"] == "the provider has no userinfo endpoint"

        token = cli.run("token")
        assert token.returncode == 0, token.stderr
        refreshed = [e for e in fixture.events if e["kind"] == "token" and e.get("grant") == "refresh_token"]
        # Tokens that expire within the refresh leeway are refreshed at once;
        # an expiry further away (or none) keeps the token.
        expected_refreshes = 1 if expect["refresh"] and profile.get("expires_in", 10**9) <= 60 else 0
        assert len(refreshed) == expected_refreshes

        logout = cli.run("logout", "--no-browser")
        assert logout.returncode == 0, logout.stderr
        revoked = [e for e in fixture.events if e["kind"] == "revoke"]
        if expect["revoke"]:
            assert revoked, logout.stderr
            assert "Tokens revoked" in logout.stderr
        else:
            assert not revoked
            assert "no revocation endpoint" in logout.stderr


@pytest.mark.parametrize("name", ["auth0", "entra-single-tenant", "okta-org", "okta-custom"])
def test_logout_returns_although_the_provider_never_redirects_back(name, tmp_path):
    """These providers answer the end-session request with their own page and
    never redirect back to the loopback listener (the fixture's end-session
    endpoint answers with a page, as theirs do when the loopback URI is
    registered only for sign-in; Cognito publishes no end-session endpoint). logout revokes, signs out
    locally, hands the page to the browser and returns `not_confirmed` after
    its short default wait (it used to wait 300 s: this run's 60 s bound)."""
    profile = PROFILES[name]
    with ProviderFixture(profile) as fixture:
        cli = Runner(tmp_path, profile)
        assert cli.run(*login_args(fixture, profile["command"])).returncode == 0
        logout = cli.run("logout", "--json")
        assert logout.returncode == 0, logout.stderr
        report = json.loads(logout.stdout)
        assert report["end_session"] == "not_confirmed" and report["signed_in"] is True
        assert report["revoked"] is PROFILES[name]["expect"]["revoke"]
        assert "end_session" in fixture.kinds()
        assert "within 5 s" in logout.stderr


@pytest.mark.parametrize("name", ["auth0", "entra-single-tenant", "github-app", "zoom"])
def test_refresh_when_the_access_token_runs_out(name, tmp_path):
    """A short-lived access token is refreshed by `authflow token` (rotation where the provider rotates).

    The session refreshes within its leeway, which is at most half the
    token's lifetime: a 2-second token is refreshed once 1.5 s have passed.
    """
    profile = dict(PROFILES[name], expires_in=2)
    with ProviderFixture(profile) as fixture:
        cli = Runner(tmp_path, profile)
        assert cli.run(*login_args(fixture, profile["command"])).returncode == 0
        time.sleep(1.5)
        first = cli.run("token")
        assert first.returncode == 0, first.stderr
        grants = [e.get("grant") for e in fixture.events if e["kind"] == "token"]
        assert grants == ["authorization_code", "refresh_token"]


def test_entra_common_without_tenant_names_the_flag(tmp_path):
    profile = PROFILES["entra-multi-tenant"]
    with ProviderFixture(profile) as fixture:
        command = [a for a in profile["command"] if a not in ("--tenant", "any")]
        result = Runner(tmp_path, profile).run(*login_args(fixture, command))
        assert result.returncode == 4
        assert "issuer_mismatch" in result.stderr
        assert "--tenant any, or --tenant ID[,ID]" in result.stderr


def test_entra_tenant_list_refuses_another_tenant(tmp_path):
    profile = PROFILES["entra-multi-tenant"]
    with ProviderFixture(profile) as fixture:
        command = [("72f988bf-86f1-41af-91ab-2d7cd011db47" if a == "any" else a) for a in profile["command"]]
        result = Runner(tmp_path, profile).run(*login_args(fixture, command))
        assert result.returncode == 4
        assert "id_token_invalid (issuer)" in result.stderr
        assert f"Add {ENTRA_TENANT} to --tenant" in result.stderr
        allowed = [(ENTRA_TENANT if a == "any" else a) for a in profile["command"]]
        assert Runner(tmp_path, profile).run(*login_args(fixture, allowed)).returncode == 0


def test_auth0_domain_without_trailing_slash_gets_the_fix(tmp_path):
    profile = PROFILES["auth0"]
    with ProviderFixture(profile) as fixture:
        command = [("{base}" if a == "{base}/" else a) for a in profile["command"]]
        result = Runner(tmp_path, profile).run(*login_args(fixture, command))
        assert result.returncode == 4
        assert f"use --issuer {fixture.base}/" in result.stderr


def test_apple_name_scope_without_form_post_is_the_providers_error(tmp_path):
    profile = PROFILES["apple"]
    with ProviderFixture(profile) as fixture:
        command = [a for a in profile["command"] if a not in ("--param", "response_mode=form_post")]
        result = Runner(tmp_path, profile).run(*login_args(fixture, command, "--json"))
        assert result.returncode == 3
        assert json.loads(result.stdout)["error"]["oauth_error"] == "invalid_request"


@pytest.mark.parametrize("name", ["github-oauth-app", "slack"])
def test_error_with_http_200_is_an_oauth_error(name, tmp_path):
    """GitHub and Slack answer a bad client with HTTP 200 and an error member."""
    profile = dict(PROFILES[name], client_secret="the-registered-secret")
    with ProviderFixture(profile) as fixture:
        cli = Runner(tmp_path, profile)
        cli.env["PROVIDER_SECRET"] = "a-wrong-secret"
        result = cli.run(*login_args(fixture, profile["command"], "--json"))
        assert result.returncode == 3, result.stdout + result.stderr
        assert json.loads(result.stdout)["error"]["category"] == "oauth_error"


def test_github_scopes_are_split_on_commas(tmp_path):
    profile = PROFILES["github-oauth-app"]
    with ProviderFixture(profile) as fixture:
        result = Runner(tmp_path, profile).run(*login_args(fixture, profile["command"], "--json"))
        assert result.returncode == 0, result.stderr
        scope = json.loads(result.stdout)["scope"]
        assert scope.split() == ["read:user", "user:email"]


def test_explicit_jwks_and_issuer_verify_the_id_token(tmp_path):
    """An OpenID provider used without discovery still gets a verified subject."""
    profile = PROFILES["keycloak"]
    with ProviderFixture(profile) as fixture:
        realm = fixture.base + "/realms/demo/protocol/openid-connect"
        args = ["--authorization-endpoint", f"{realm}/auth", "--token-endpoint", f"{realm}/token",
                "--jwks-uri", f"{realm}/certs", "--id-token-issuer", fixture.issuer,
                "--userinfo-endpoint", f"{realm}/userinfo", "--revocation-endpoint", f"{realm}/revoke",
                "--client-id", "cli", "--scope", "openid profile"]
        cli = Runner(tmp_path, profile)
        result = cli.run(*login_args(fixture, args, "--json"))
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["subject"] == profile["subject"]
        assert cli.run("userinfo").returncode == 0
        assert cli.run("logout", "--no-browser").returncode == 0
        assert "revoke" in fixture.kinds()
        # Keys of another issuer: the ID token is refused.
        wrong = [("http://127.0.0.1:9/other" if a == fixture.issuer else a) for a in args]
        refused = cli.run(*login_args(fixture, wrong))
        assert refused.returncode == 4
        assert "id_token_invalid (issuer)" in refused.stderr


@pytest.mark.parametrize("extra, message", [
    (["--issuer", "https://id.example", "--jwks-uri", "https://id.example/jwks", "--id-token-issuer", "https://id.example"],
     "--jwks-uri goes with --authorization-endpoint and --token-endpoint"),
    (["--authorization-endpoint", "https://id.example/a", "--token-endpoint", "https://id.example/t",
      "--jwks-uri", "https://id.example/jwks"], "--jwks-uri and --id-token-issuer go together"),
    (["--authorization-endpoint", "https://id.example/a", "--token-endpoint", "https://id.example/t", "--tenant", "any"],
     "--tenant applies to --issuer"),
    (["--issuer", "https://id.example", "--tenant", "a/b"], "--tenant any, or tenant IDs separated by commas"),
])
def test_flag_combinations_are_usage_errors(extra, message, tmp_path):
    result = Runner(tmp_path, {}).run("login", "--client-id", "x", *extra)
    assert result.returncode == 2
    assert message in result.stderr


def test_explicit_endpoint_contradicting_discovery_names_the_flag(tmp_path):
    profile = PROFILES["keycloak"]
    with ProviderFixture(profile) as fixture:
        result = Runner(tmp_path, profile).run(*login_args(fixture, profile["command"], "--revocation-endpoint",
                                                           f"{fixture.base}/elsewhere"))
        assert result.returncode == 1
        assert "hint: Leave out --revocation-endpoint" in result.stderr
        assert fixture.kinds() == []


def test_plain_http_endpoint_off_loopback_is_refused(tmp_path):
    profile = PROFILES["zoom"]
    with ProviderFixture(profile) as fixture:
        command = [("http://zoom.example/oauth/revoke" if a.endswith("/oauth/revoke") else a) for a in profile["command"]]
        result = Runner(tmp_path, profile).run(*login_args(fixture, command, "--json"))
        assert result.returncode == 1
        error = json.loads(result.stdout)["error"]
        assert error["category"] == "configuration"
        assert "revocation_endpoint" in error["description"]


def test_discover_multi_tenant(tmp_path):
    profile = PROFILES["entra-multi-tenant"]
    with ProviderFixture(profile) as fixture:
        cli = Runner(tmp_path, profile)
        refused = cli.run("discover", fixture.issuer)
        assert refused.returncode == 4
        assert "--tenant" in refused.stderr
        accepted = cli.run("discover", fixture.issuer, "--tenant", "any")
        assert accepted.returncode == 0, accepted.stderr
        assert f"issuer: {fixture.base}/{{tenantid}}/v2.0" in accepted.stdout
        assert "tenants: any" in accepted.stdout
