"""OpenID Connect through the CLI: the ID token each server issues is verified
(signature via its JWKS, every claim rule) before `authflow login` reports
success, then userinfo is read and its `sub` checked."""

import json

import pytest

from test_cli import AUTHFLOW_BIN, CLI, assert_success, describe  # noqa: F401

pytestmark = pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set")


@pytest.fixture
def cli(interop_config, tmp_path):
    xdg = tmp_path / "xdg"
    xdg.mkdir()
    return CLI(interop_config, xdg)


def test_login_reports_verified_claims_and_userinfo(cli, server, server_name):
    out = assert_success(cli.login(server, "--scope", "openid profile email", "--json"))
    claims = out["id_token_claims"]
    assert claims["iss"] == server["issuer"]
    assert out["subject"] == claims["sub"]
    # DOT sends aud as a string, Authlib as an array: both must be accepted.
    if server_name == "dot":
        assert claims["aud"] == server["public_client_id"]
    else:
        assert claims["aud"] == [server["public_client_id"]]
    assert isinstance(claims["exp"], int) and isinstance(claims["iat"], int)
    assert claims["nonce"] == "<verified, not shown>", "the nonce is checked, never printed"
    assert out["userinfo"]["sub"] == claims["sub"], "login read userinfo and checked its sub"

    info = cli.run("userinfo", "--profile", "p", "--json")
    assert info.returncode == 0, describe(info)
    assert json.loads(info.stdout)["sub"] == claims["sub"]
    human = cli.run("userinfo", "--profile", "p")
    assert human.returncode == 0 and f"sub: {claims['sub']}" in human.stdout


def test_human_login_prints_verified_claims(cli, server):
    out = cli.login(server, "--scope", "openid profile")
    assert out.returncode == 0, describe(out)
    assert "verified ID token claims:" in out.stdout
    assert f"iss: {server['issuer']}" in out.stdout


def test_decode_is_labelled_unverified(cli, server):
    out = assert_success(cli.login(server, "--scope", "openid", "--json", "--show-tokens"))
    decoded = cli.run("decode", out["id_token"])
    assert decoded.returncode == 0, describe(decoded)
    value = json.loads(decoded.stdout)
    assert value["verified"] is False
    assert "UNVERIFIED" in value["warning"]
    assert value["claims"]["sub"] == out["subject"]
    assert value["header"]["alg"] == "RS256"


def test_decode_refuses_malformed_input(cli):
    decoded = cli.run("decode", "not.a.jwt")
    assert decoded.returncode == 4, describe(decoded)
    err = json.loads(decoded.stdout)["error"]
    assert (err["category"], err["reason"]) == ("id_token_invalid", "malformed")
