"""Checks of the servers' device authorization grant (RFC 8628) and of
browser.py on their verification pages, with a Python stand-in client (no
Swift), so a failure of test_device.py can be told apart from a broken test bed.
They also pin the server behaviour the README describes.
"""

import time

import requests

from interop_helpers import run_browser

HTTP_TIMEOUT = 15
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"


def device_authorization(server, client_id, endpoint=None, scope="openid profile"):
    resp = requests.post(endpoint or server["device_authorization_endpoint"],
                         data={"client_id": client_id, "scope": scope}, timeout=HTTP_TIMEOUT)
    assert resp.status_code == 200, resp.text
    body = resp.json()
    for key in ("device_code", "user_code", "verification_uri", "expires_in"):
        assert key in body, body
    return body


def poll(server, client_id, device_code):
    resp = requests.post(server["token_endpoint"], timeout=HTTP_TIMEOUT,
                         data={"grant_type": DEVICE_GRANT, "device_code": device_code, "client_id": client_id})
    return resp.status_code, resp.json()


def test_device_endpoint_in_discovery(server):
    doc = requests.get(server["discovery_url"], timeout=HTTP_TIMEOUT).json()
    if server["device_publishes_endpoint"]:
        assert doc["device_authorization_endpoint"] == server["device_authorization_endpoint"]
    else:
        assert "device_authorization_endpoint" not in doc  # DOT 3.4


def test_device_flow_approved_by_browser(interop_config, server):
    client_id = server["device_client_id"]
    body = device_authorization(server, client_id)
    assert body["interval"] == 1
    assert body["user_code"] in body["verification_uri_complete"]
    status, answer = poll(server, client_id, body["device_code"])
    assert (status, answer["error"]) in ((400, "authorization_pending"), (400, "slow_down")), answer
    proc = run_browser(interop_config["browser"], body["verification_uri_complete"])
    assert proc.returncode == 0, f"browser.py failed:\n{proc.stderr}"
    time.sleep(1)
    status, answer = poll(server, client_id, body["device_code"])
    assert status == 200, answer
    assert answer["token_type"].lower() == "bearer"
    assert ("id_token" in answer) == server["device_issues_id_token"]


def test_device_flow_denied_by_browser(interop_config, server):
    client_id = server["device_client_id"]
    body = device_authorization(server, client_id)
    proc = run_browser(interop_config["browser"], body["verification_uri_complete"], action="deny")
    assert proc.returncode == 0, f"browser.py failed:\n{proc.stderr}"
    time.sleep(1)
    status, answer = poll(server, client_id, body["device_code"])
    assert answer["error"] == "access_denied", answer


def test_authlib_answers_slow_down_to_fast_polling(interop_config):
    server = interop_config["servers"]["authlib"]
    client_id = server["device_client_id"]
    body = device_authorization(server, client_id)
    answers = [poll(server, client_id, body["device_code"])[1]["error"] for _ in range(2)]
    assert answers == ["slow_down", "slow_down"], answers  # both within 0.5 s of the previous request
    time.sleep(0.6)
    assert poll(server, client_id, body["device_code"])[1]["error"] == "authorization_pending"


def test_authlib_expired_token(interop_config):
    server = interop_config["servers"]["authlib"]
    client_id = server["device_short_client_id"]
    body = device_authorization(server, client_id)
    assert body["expires_in"] == 4
    time.sleep(2.2)
    assert poll(server, client_id, body["device_code"])[1]["error"] == "expired_token"


def test_dot_answers_pending_after_expiry(interop_config):
    """DOT only marks a code expired on its verification page: the token
    endpoint keeps answering authorization_pending (clients need their own
    expires_in deadline)."""
    server = interop_config["servers"]["dot"]
    client_id = server["device_client_id"]
    body = device_authorization(server, client_id, endpoint=server["device_short_authorization_endpoint"])
    assert body["expires_in"] == 3
    time.sleep(3.5)
    status, answer = poll(server, client_id, body["device_code"])
    assert (status, answer["error"]) == (400, "authorization_pending"), answer
