"""`authflow login --account user@host`: the embedded provider answers
WebFinger for its users (OpenID Connect Discovery 1.0 §2, RFC 7033), the
CLI finds the issuer from the account and then signs in as with --issuer.
The provider signs in automatically; the fixture browser follows its
redirect to the loopback listener."""

import json
import urllib.parse

import pytest
import requests

from credential_fixtures import AUTHFLOW_BIN, CLI, SCOPE, browsers_opened, describe, provider  # noqa: F401

pytestmark = pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set")

ISSUER_REL = "http://openid.net/specs/connect/1.0/issuer"


def host(provider):
    return urllib.parse.urlsplit(provider["issuer"]).netloc


def login_by_account(cli, account, *extra):
    return cli.run("login", "--account", account, "--client-id", "cli-public", "--scope", SCOPE, "--profile", "work",
                   "--browser-timeout", "30", "--json", *extra)


def test_the_provider_answers_webfinger_for_its_users(provider):
    answer = requests.get(provider["issuer"] + "/.well-known/webfinger",
                          params={"resource": f"acct:alice@{host(provider)}", "rel": ISSUER_REL}, timeout=10)
    assert answer.status_code == 200
    assert answer.headers["Content-Type"] == "application/jrd+json"
    assert answer.json()["links"] == [{"rel": ISSUER_REL, "href": provider["issuer"]}]


@pytest.mark.parametrize("form", ["acct:alice@{host}", "alice@{host}"])
def test_login_by_account_signs_in_with_the_issuer_webfinger_names(provider, tmp_path, form):
    cli = CLI(tmp_path)
    result = login_by_account(cli, form.format(host=host(provider)))
    assert result.returncode == 0, describe(result)
    summary = json.loads(result.stdout)
    assert summary["issuer"] == provider["issuer"]
    assert summary["subject"] == "alice-1"
    # The profile keeps the issuer found, so the next commands need no WebFinger.
    assert json.loads(cli.profile_path().read_text())["metadata"]["issuer"] == provider["issuer"]
    assert cli.token().count(".") == 2


def test_an_unknown_account_says_to_give_the_issuer(provider, tmp_path):
    cli = CLI(tmp_path)
    account = f"acct:nobody@{host(provider)}"
    result = login_by_account(cli, account)
    assert result.returncode == 1, describe(result)
    error = json.loads(result.stdout)["error"]
    assert error["category"] == "invalid_response"
    assert error["description"] == f"no WebFinger answer for {account} (HTTP 404)"
    plain = cli.run("login", "--account", account, "--client-id", "cli-public")
    assert "hint: The account's domain does not name its OpenID provider (WebFinger): give --issuer instead of --account." \
        in plain.stderr, describe(plain)
    assert browsers_opened(tmp_path) == 0


def test_an_account_that_is_no_account_is_refused_before_any_request(provider, tmp_path):
    cli = CLI(tmp_path)
    result = login_by_account(cli, "mailto:alice@example.com")
    assert result.returncode == 1, describe(result)
    error = json.loads(result.stdout)["error"]
    assert error["category"] == "configuration"
    assert error["description"] == "--account: the account has the scheme mailto:, not acct:, https: or http:"


def test_account_and_issuer_together_are_a_usage_error(provider, tmp_path):
    cli = CLI(tmp_path)
    result = login_by_account(cli, f"alice@{host(provider)}", "--issuer", provider["issuer"])
    assert result.returncode == 2, describe(result)
    assert "use either --issuer or --account" in result.stdout + result.stderr


@pytest.mark.parametrize("secret", [["--client-secret", "s3cret-value"], ["--client-secret-env", "AUTHFLOW_TEST_SECRET"]])
def test_a_client_secret_never_goes_to_the_provider_an_account_names(provider, tmp_path, secret):
    # The account's domain chooses the provider: a secret is refused before any request.
    cli = CLI(tmp_path)
    result = login_by_account(cli, f"alice@{host(provider)}", *secret)
    assert result.returncode == 2, describe(result)
    assert "a client secret goes only to a provider you name with --issuer" in result.stdout + result.stderr
    assert "s3cret-value" not in result.stdout + result.stderr
    assert browsers_opened(tmp_path) == 0
