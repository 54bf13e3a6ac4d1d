"""`authflow credential kubectl` as kubectl's exec credential plugin: the
real kubectl from Debian reads a kubeconfig whose user is the plugin and
calls a stub API server on 127.0.0.1 over TLS (kube_stub.py), with
ExecCredential v1 and v1beta1, the access token and the ID token, an expired
ID token refreshed, and `interactiveMode: Never` honoured."""

import base64
import json
import os
import shutil
import time

import pytest

from credential_fixtures import AUTHFLOW_BIN, CLI, browsers_opened, describe, provider  # noqa: F401
from kube_stub import KubeStub

KUBECTL = shutil.which("kubectl")
# Debian's kubernetes-client 1.20, which speaks only v1beta1 (scripts/test unpacks it and sets this).
OLD_KUBECTL = os.environ.get("AUTHFLOW_KUBECTL_1_20")
pytestmark = [pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set"),
              pytest.mark.skipif(not KUBECTL, reason="kubectl is not installed")]
V1 = "client.authentication.k8s.io/v1"
V1BETA1 = "client.authentication.k8s.io/v1beta1"


@pytest.fixture
def cli(provider, tmp_path):
    cli = CLI(tmp_path)
    cli.login(provider)
    return cli


@pytest.fixture
def stub(cli, tmp_path):
    def accept(token):
        credentials = json.loads(cli.profile_path().read_text()).get("credentials") or {}
        held = credentials.get("token", {})
        return token in (held.get("accessToken"), held.get("idToken"))

    stub = KubeStub(tmp_path, accept)
    yield stub
    stub.stop()


def kubectl(cli, kubeconfig, env=None, binary=None):
    return cli.run("--kubeconfig", kubeconfig, "get", "--raw", "/api/authflow-check", binary=binary or KUBECTL,
                   env={"KUBECACHEDIR": str(cli.tmp_path / "kubecache"), **(env or {})})


def stored(cli):
    return json.loads(cli.profile_path().read_text())["credentials"]["token"]


@pytest.mark.parametrize("api_version", [V1, V1BETA1])
def test_kubectl_sends_the_access_token(cli, stub, tmp_path, api_version):
    config = stub.kubeconfig(tmp_path / "kubeconfig", AUTHFLOW_BIN, ["credential", "kubectl", "--profile", "work"], api_version)
    result = kubectl(cli, config)
    assert result.returncode == 0, describe(result)
    assert json.loads(result.stdout)["status"] == "Success"
    assert stub.seen[-1] == cli.token()


@pytest.mark.parametrize("api_version", [V1, V1BETA1])
def test_kubectl_sends_the_id_token_and_an_expired_one_is_refreshed(cli, stub, tmp_path, api_version):
    config = stub.kubeconfig(tmp_path / "kubeconfig", AUTHFLOW_BIN,
                             ["credential", "kubectl", "--profile", "work", "--token", "id"], api_version)
    first = stored(cli)["idToken"]
    result = kubectl(cli, config)
    assert result.returncode == 0, describe(result)
    assert stub.seen[-1] == first

    # The stored ID token's claims say it expired: the plugin refreshes for a new one.
    def expire_id_token(data):
        data["credentials"]["idToken"]["expiresAt"] = "2000-01-01T00:00:00.000"
        data["credentials"]["idToken"]["issuedAt"] = "1999-12-31T23:00:00.000"
    cli.edit_profile("work", expire_id_token)
    answer = cli.run("credential", "kubectl", "--profile", "work", "--token", "id",
                     env={"KUBERNETES_EXEC_INFO": json.dumps({"kind": "ExecCredential", "apiVersion": api_version,
                                                              "spec": {"interactive": False}})})
    assert answer.returncode == 0 and answer.stderr == "", describe(answer)
    credential = json.loads(answer.stdout)
    assert credential["apiVersion"] == api_version and credential["kind"] == "ExecCredential"
    renewed = credential["status"]["token"]
    assert renewed != first and renewed == stored(cli)["idToken"]
    claims = json.loads(base64.urlsafe_b64decode(renewed.split(".")[1] + "=="))
    assert credential["status"]["expirationTimestamp"] == time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(claims["exp"]))
    again = kubectl(cli, config)
    assert again.returncode == 0 and stub.seen[-1] == renewed, describe(again)


@pytest.mark.skipif(not (OLD_KUBECTL and os.access(OLD_KUBECTL, os.X_OK)), reason="AUTHFLOW_KUBECTL_1_20 is not set")
@pytest.mark.parametrize("kind", ["access", "id"])
def test_kubectl_1_20_with_v1beta1(cli, stub, tmp_path, kind):
    config = stub.kubeconfig(tmp_path / "kubeconfig", AUTHFLOW_BIN,
                             ["credential", "kubectl", "--profile", "work", "--token", kind], V1BETA1, interactive_mode=None)
    result = kubectl(cli, config, binary=OLD_KUBECTL)
    assert result.returncode == 0, describe(result)
    assert stub.seen[-1] == (cli.token() if kind == "access" else stored(cli)["idToken"])


def test_interactive_mode_never_fails_at_once_when_a_sign_in_is_needed(cli, stub, tmp_path):
    config = stub.kubeconfig(tmp_path / "kubeconfig", AUTHFLOW_BIN, ["credential", "kubectl", "--profile", "work"],
                             V1, interactive_mode="Never")
    cli.sign_out_locally()
    result = kubectl(cli, config)
    assert result.returncode != 0, describe(result)
    assert ("profile work needs a sign-in, and this helper does not sign in without a user "
            "(kubectl asked for a non-interactive credential)") in result.stderr
    assert browsers_opened(tmp_path) == 1  # the fixture's login only
    assert stub.seen == []


def test_an_interactive_kubectl_signs_in_once_and_goes_on(cli, stub, tmp_path, provider):
    config = stub.kubeconfig(tmp_path / "kubeconfig", AUTHFLOW_BIN, ["credential", "kubectl", "--profile", "work"],
                             V1, interactive_mode="IfAvailable")
    cli.sign_out_locally()
    # kubectl counts the plugin as interactive only with a terminal on stdin; the plugin is run directly here.
    answer = cli.run("credential", "kubectl", "--profile", "work",
                     env={"KUBERNETES_EXEC_INFO": json.dumps({"kind": "ExecCredential", "apiVersion": V1,
                                                              "spec": {"interactive": True}})})
    assert answer.returncode == 0, describe(answer)
    assert json.loads(answer.stdout)["status"]["token"] == cli.token()
    assert browsers_opened(tmp_path) == 2
    result = kubectl(cli, config)
    assert result.returncode == 0, describe(result)


@pytest.mark.parametrize("info, error", [
    ('{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v2"}',
     "error: KUBERNETES_EXEC_INFO asks for client.authentication.k8s.io/v2, which this plugin does not speak"),
    ("garbage", "error: KUBERNETES_EXEC_INFO is not JSON: unexpected byte 0x67 at offset 0"),
    ('{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","apiVersion":"x"}',
     'error: KUBERNETES_EXEC_INFO is not JSON: duplicate member name "apiVersion"'),
])
def test_bad_exec_info_is_refused_without_a_token(cli, info, error):
    token = cli.token()
    answer = cli.run("credential", "kubectl", "--profile", "work", env={"KUBERNETES_EXEC_INFO": info})
    assert answer.returncode == 2 and answer.stdout == "", describe(answer)
    assert answer.stderr.startswith(error) and token not in answer.stderr
