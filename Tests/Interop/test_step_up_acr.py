"""RFC 9470 step-up end to end: `authflow provider serve` with a demo API
that needs the `acr` urn:authflow:mfa (and a sign-in within ten minutes),
`authflow login --resource` (a token without `acr`), then `authflow request`:
the API answers 401 `insufficient_user_authentication` with `acr_values`
and `max_age`, the CLI signs in again once asking for them (headless
Chromium on the provider's login page), and the retry passes. A provider
that cannot sign in at that level leaves the API refusing after the one
step-up: a typed error, not a loop."""

import json

import pytest

from cli_fixtures import CLI, NEEDS_CLI_AND_CHROMIUM, serve_provider, stop_provider

pytestmark = NEEDS_CLI_AND_CHROMIUM

MFA = "urn:authflow:mfa"


def serve(tmp_path_factory, supported):
    config = tmp_path_factory.mktemp("provider") / "provider.json"
    config.write_text(json.dumps({
        "sign_in": "login_page",
        "acr_values_supported": supported,
        "protected_resources": [{"resource": "/api", "acr_values": [MFA], "max_age": 600}],
    }))
    return serve_provider(config)


@pytest.fixture(scope="module")
def provider(tmp_path_factory):
    served = serve(tmp_path_factory, ["urn:authflow:password", MFA])
    yield served
    stop_provider(served)


@pytest.fixture(scope="module")
def weak_provider(tmp_path_factory):
    served = serve(tmp_path_factory, ["urn:authflow:password"])
    yield served
    stop_provider(served)


def test_request_signs_in_again_at_the_level_the_api_names(provider, tmp_path):
    cli = CLI(tmp_path)
    cli.ok("login", "--resource", provider["api"], "--json")
    assert cli.browsers() == 1
    result = cli.ok("request", provider["api"])
    assert json.loads(result.stdout)["resource"] == provider["api"]
    assert f"The API needs another sign-in (acr_values {MFA}, max_age 600); signing in again." in result.stderr
    assert cli.browsers() == 2
    # The new token names the level: no further sign-in.
    cli.ok("request", provider["api"])
    assert cli.browsers() == 2


def test_a_provider_that_cannot_reach_the_level_ends_in_one_typed_error(weak_provider, tmp_path):
    cli = CLI(tmp_path)
    cli.ok("login", "--resource", weak_provider["api"], "--json")
    result = cli.run("request", weak_provider["api"])
    assert result.returncode == 3, result.stderr  # an OAuth error
    assert cli.browsers() == 2, "one step-up, never a loop"
    assert ("the resource still needs another authentication after authorizing again: "
            f"acr_values {MFA}, max_age 600") in result.stderr, result.stderr
