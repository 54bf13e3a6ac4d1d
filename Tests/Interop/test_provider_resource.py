"""`authflow provider serve --resource` as a process, checked with plain HTTP.

The chain a client walks to sign in to an API by its URL: the API's 401 names
its RFC 9728 metadata, which names the provider; the client registers
(RFC 7591), signs in with PKCE and the RFC 8707 resource, and gets an RFC 9068
JWT access token (verified here with joserfc against the JWK Set) whose aud is
the API, which then answers 200; SIGUSR1 makes the provider forget the
registration, so the refresh is invalid_client.
"""

import base64
import json
import hashlib
import os
import re
import secrets
import signal
import subprocess
import time
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from joserfc import jwt
from joserfc.jwk import KeySet

from interop_helpers import read_until_ready

AUTHFLOW_BIN = os.environ.get("AUTHFLOW_BIN")
pytestmark = pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set")


def start(*arguments):
    process = subprocess.Popen(
        [AUTHFLOW_BIN, "provider", "serve", *(arguments or ("--resource", "/api", "--resource-scope", "api.read"))],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    lines, ready = read_until_ready(process)
    if ready:
        return process, dict(entry.split(": ", 1) for entry in lines if ": " in entry)
    process.kill()
    pytest.fail(f"provider did not start: {lines} {process.stderr.read()[-2000:]}")


def test_resource_chain():
    process, listing = start()
    try:
        issuer = listing["issuer"]
        resource = listing["resource"].split(" ")[0]
        assert resource == issuer + "/api"

        bare = requests.get(resource, timeout=10)
        assert bare.status_code == 401
        challenge = bare.headers["WWW-Authenticate"]
        assert challenge.startswith("Bearer ")
        metadata_url = re.search(r'resource_metadata="([^"]+)"', challenge).group(1)
        assert metadata_url == issuer + "/.well-known/oauth-protected-resource/api"
        resource_metadata = requests.get(metadata_url, timeout=10).json()
        assert resource_metadata["resource"] == resource
        assert resource_metadata["authorization_servers"] == [issuer]
        assert resource_metadata["scopes_supported"] == ["api.read"]

        server = requests.get(issuer + "/.well-known/oauth-authorization-server", timeout=10).json()
        assert server["client_id_metadata_document_supported"] is True
        registered = requests.post(server["registration_endpoint"], timeout=10, json={
            "redirect_uris": ["http://127.0.0.1/callback"], "application_type": "native",
            "token_endpoint_auth_method": "none", "grant_types": ["authorization_code", "refresh_token"],
            "client_name": "pytest"})
        assert registered.status_code == 201, registered.text
        client_id = registered.json()["client_id"]
        assert "client_secret" not in registered.json()

        verifier = secrets.token_urlsafe(48)
        challenge_value = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        redirect = "http://127.0.0.1:8765/callback"  # registered without a port: any port
        answer = requests.get(server["authorization_endpoint"], allow_redirects=False, timeout=10, params={
            "response_type": "code", "client_id": client_id, "redirect_uri": redirect, "scope": "openid api.read offline_access",
            "code_challenge": challenge_value, "code_challenge_method": "S256", "state": "st", "resource": resource})
        assert answer.status_code == 302, answer.text
        code = parse_qs(urlsplit(answer.headers["Location"]).query)["code"][0]
        tokens = requests.post(server["token_endpoint"], timeout=10, data={
            "grant_type": "authorization_code", "code": code, "redirect_uri": redirect, "client_id": client_id,
            "code_verifier": verifier, "resource": resource}).json()

        keys = KeySet.import_key_set(requests.get(server["jwks_uri"], timeout=10).json())
        token = jwt.decode(tokens["access_token"], keys)
        assert token.header["typ"] == "at+jwt"
        assert token.claims["aud"] == resource and token.claims["iss"] == issuer
        assert token.claims["client_id"] == client_id and token.claims["sub"] == "demo"
        assert "api.read" in token.claims["scope"].split()

        called = requests.get(resource, headers={"Authorization": "Bearer " + tokens["access_token"]}, timeout=10)
        assert called.status_code == 200 and called.json()["sub"] == "demo"

        process.send_signal(signal.SIGUSR1)
        refused = None
        for _ in range(50):  # the signal is handled asynchronously
            refused = requests.post(server["token_endpoint"], timeout=10, data={
                "grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], "client_id": client_id})
            if refused.status_code != 200:
                break
            tokens = refused.json()
            time.sleep(0.1)
        assert refused.json()["error"] == "invalid_client"
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0


def test_the_configuration_file_serves_resources_and_turns_registration_off(tmp_path):
    config = tmp_path / "provider.json"
    config.write_text(json.dumps({
        "protected_resources": [{"resource": "/files", "scopes": ["files.read"], "scopes_supported": ["files.read", "files.write"]}],
        "dynamic_client_registration": False,
        "client_id_metadata_documents": {"enabled": False}}))
    process, listing = start("--config", str(config))
    try:
        issuer = listing["issuer"]
        assert listing["resource"] == f"{issuer}/files (requires scope files.read)" and "registration" not in listing
        metadata = requests.get(issuer + "/.well-known/oauth-protected-resource/files", timeout=10).json()
        assert metadata["scopes_supported"] == ["files.read", "files.write"]
        server = requests.get(issuer + "/.well-known/oauth-authorization-server", timeout=10).json()
        assert "registration_endpoint" not in server and server["client_id_metadata_document_supported"] is False
        assert requests.post(issuer + "/register", json={"redirect_uris": ["http://127.0.0.1/callback"]}, timeout=10).status_code == 404
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0


def test_a_bad_configuration_value_is_exit_2_naming_the_member(tmp_path):
    config = tmp_path / "provider.json"
    config.write_text(json.dumps({"protected_resources": [{"resource": "/api", "scopes": []}]}))
    result = subprocess.run([AUTHFLOW_BIN, "provider", "serve", "--config", str(config)], capture_output=True, text=True,
                            timeout=60, stdin=subprocess.DEVNULL)
    assert result.returncode == 2
    assert result.stderr == "error: provider.json: protected_resources[0].scopes must name at least one scope (leave it out for api.read)\n"
