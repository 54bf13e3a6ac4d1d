"""Command lines a script builds from values it did not choose, and what a
script reading stdout gets back.

- A client ID that begins with `-` (some providers generate them; the
  embedded provider never does) signs in when written `--client-id=ID`, as
  docs/cli.md says; written as two words it is a usage error that names
  the flag.
- Under `--json`, every failure prints the error object on stdout, usage
  errors (exit 2) included: one found while parsing, one found by a
  command's validation, and one found at run time (`--tenant` on an issuer
  that is not a multi-tenant template).

Needs AUTHFLOW_BIN (skipped otherwise).
"""

import json
import signal

import pytest

from credential_fixtures import AUTHFLOW_BIN, CALLBACK, CLI
from test_provider import start

pytestmark = pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set")

DASH_CLIENT = "-m189v0mfR7A5n8dwNIljA"
CONFIG = {
    "port": 0,
    "sign_in": "automatic",
    "automatic_user": "alice-1",
    "clients": [{"client_id": DASH_CLIENT, "redirect_uris": CALLBACK, "grant_types": ["authorization_code", "refresh_token"],
                 "scope": "openid profile offline_access"}],
    "users": [{"sub": "alice-1", "username": "alice", "password": "pw", "claims": {"name": "Alice Example"}}],
}


@pytest.fixture(scope="module")
def provider(tmp_path_factory):
    path = tmp_path_factory.mktemp("provider") / "provider.json"
    path.write_text(json.dumps(CONFIG))
    process, issuer, _ = start(str(path))
    yield {"issuer": issuer}
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=10)


def usage_error(result):
    """The error object of a usage error on stdout (exit 2)."""
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    error = json.loads(result.stdout)["error"]
    assert error["category"] == "usage" and error["reason"] is None and error["oauth_error"] is None, error
    return error["description"]


def test_a_client_id_beginning_with_a_dash_signs_in_with_the_equals_form(provider, tmp_path):
    cli = CLI(tmp_path)
    result = cli.run("login", "--issuer", provider["issuer"], f"--client-id={DASH_CLIENT}", "--scope", "openid profile",
                     "--profile", "dash", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["id_token_claims"]["aud"] == DASH_CLIENT
    assert json.loads(cli.profile_path("dash").read_text())["client_id"] == DASH_CLIENT


def test_a_client_id_beginning_with_a_dash_as_two_words_is_a_usage_error(provider, tmp_path):
    result = CLI(tmp_path).run("login", "--issuer", provider["issuer"], "--client-id", DASH_CLIENT, "--json")
    assert "Missing value for '--client-id" in usage_error(result)
    assert "Missing value for '--client-id" in result.stderr


def test_tenant_on_an_issuer_that_is_not_a_template_prints_the_error_object(provider, tmp_path):
    """Found only after discovery, at run time: before, stdout was empty."""
    result = CLI(tmp_path).run("login", "--issuer", provider["issuer"], f"--client-id={DASH_CLIENT}", "--tenant", "any",
                               "--json")
    description = usage_error(result)
    assert description.startswith("--tenant applies only to a multi-tenant issuer"), description
    assert provider["issuer"] in description
    assert "--tenant applies only to a multi-tenant issuer" in result.stderr


@pytest.mark.parametrize("arguments, expected", [
    (["login", "--json", "--client-id"], "Missing value for '--client-id"),
    (["login", "--json", "--no-such-flag"], "Unknown option '--no-such-flag'"),
    (["login", "--json", "--client-id=x"], "give --issuer, or both --authorization-endpoint and --token-endpoint"),
    (["logout", "--json", "--browser-timeout", "0"], "timeouts must be positive"),
    (["status", "--json", "--store", "nowhere"], "--store"),
])
def test_every_usage_error_under_json_prints_the_error_object(arguments, expected, tmp_path):
    result = CLI(tmp_path).run(*arguments)
    assert expected in usage_error(result)


def test_without_json_a_usage_error_leaves_stdout_empty(tmp_path):
    result = CLI(tmp_path).run("login", "--client-id")
    assert result.returncode == 2 and result.stdout == ""
