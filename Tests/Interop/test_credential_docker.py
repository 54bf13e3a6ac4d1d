"""`authflow credential docker` and `docker-credential-authflow` (a link:
argv[0] decides) speaking the docker-credential-helpers protocol: the JSON
shapes Docker sends and reads (`ServerURL`, `Username`, `Secret`), the
"credentials not found" line, `list`, and bad input refused without a token.
When Debian's golang-docker-credential-helpers is installed, its reference
helper (docker-credential-secretservice, on a private D-Bus session with
gnome-keyring) answers the same requests, and the shapes are compared."""

import json
import os
import shutil
import subprocess

import pytest

from credential_fixtures import AUTHFLOW_BIN, CLI, describe, provider  # noqa: F401

pytestmark = pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set")
REGISTRY = "https://registry.example.com"
NOT_FOUND = "credentials not found in native keychain\n"


@pytest.fixture
def cli(provider, tmp_path):
    cli = CLI(tmp_path)
    cli.login(provider)
    assert cli.run("credential", "hosts", "--profile", "work", "--add", REGISTRY).returncode == 0
    return cli


@pytest.fixture
def helper(tmp_path):
    """docker-credential-authflow: a symbolic link to authflow, as installed."""
    directory = tmp_path / "bin"
    directory.mkdir()
    link = directory / "docker-credential-authflow"
    link.symlink_to(AUTHFLOW_BIN)
    return str(link)


def test_get_answers_the_profiles_token_as_docker_expects(cli, helper):
    token = cli.token()
    for binary, args in ((helper, ["get"]), (AUTHFLOW_BIN, ["credential", "docker", "get"])):
        for server in ("https://registry.example.com", "registry.example.com", "https://registry.example.com/v2/\n"):
            answer = cli.run(*args, input=server, binary=binary)
            assert answer.returncode == 0 and answer.stderr == "", describe(answer)
            assert json.loads(answer.stdout) == {"ServerURL": server.strip(), "Username": "oauth2", "Secret": token}


def test_an_unserved_registry_is_not_found(cli, helper):
    for server in ("https://other.example.com", "http://registry.example.com", "registry.example.com:5000"):
        answer = cli.run("get", input=server, binary=helper)
        assert (answer.returncode, answer.stdout) == (1, NOT_FOUND), describe(answer)


def test_each_registry_gets_its_own_profile(cli, helper, provider):
    cli.login(provider, "home")
    assert cli.run("credential", "hosts", "--profile", "home", "--add", "https://home.example.com", "--username", "me").returncode == 0
    work = json.loads(cli.run("get", input=REGISTRY, binary=helper).stdout)
    home = json.loads(cli.run("get", input="home.example.com", binary=helper).stdout)
    assert (work["Username"], work["Secret"]) == ("oauth2", cli.token("work"))
    assert (home["Username"], home["Secret"]) == ("me", cli.token("home"))
    assert work["Secret"] != home["Secret"]
    listed = cli.run("list", binary=helper)
    assert listed.returncode == 0, describe(listed)
    assert json.loads(listed.stdout) == {REGISTRY: "oauth2", "https://home.example.com": "me"}


def test_store_and_erase_are_accepted_and_change_nothing(cli, helper):
    before = cli.profile_path().read_bytes()
    stored = cli.run("store", input=json.dumps({"ServerURL": REGISTRY, "Username": "u", "Secret": "s"}), binary=helper)
    erased = cli.run("erase", input=REGISTRY, binary=helper)
    for result in (stored, erased):
        assert (result.returncode, result.stdout, result.stderr) == (0, "", ""), describe(result)
    assert cli.profile_path().read_bytes() == before
    version = cli.run("version", binary=helper)
    assert version.returncode == 0 and version.stdout.startswith("docker-credential-authflow (authflow) ")


@pytest.mark.parametrize("operation, request_text, error", [
    ("get", "line one\nline two", "docker credential input: the server URL contains a line break or control character"),
    ("get", "", "docker credential input: no server URL"),
    ("get", "r" * 9000, "docker credential input is larger than 8192 bytes"),
    ("store", '{"ServerURL":"a","Username":"u"}', "docker credential input: Secret is missing or not a string"),
    ("store", "not json", "docker credential input is not JSON: unexpected byte 0x6f at offset 1"),
    ("store", '{"ServerURL":"a","ServerURL":"b","Username":"u","Secret":"s"}',
     'docker credential input is not JSON: duplicate member name "ServerURL" (object ending at offset 60)'),
    ("frobnicate", "", "Unknown credential action `frobnicate`; Usage: docker-credential-authflow <store|get|erase|list|version>"),
])
def test_bad_input_is_refused_on_stdout_as_docker_reads_it(cli, helper, operation, request_text, error):
    token = cli.token()
    answer = cli.run(operation, input=request_text, binary=helper)
    assert answer.returncode == 2, describe(answer)
    assert answer.stdout == error + "\n" and answer.stderr == f"error: {error}\n"
    assert token not in answer.stdout + answer.stderr


REFERENCE = shutil.which("docker-credential-secretservice")
SESSION = shutil.which("dbus-run-session")
KEYRING = shutil.which("gnome-keyring-daemon")


@pytest.mark.skipif(not (REFERENCE and SESSION and KEYRING), reason="golang-docker-credential-helpers is not installed")
def test_the_shapes_match_the_reference_helper(cli, helper, tmp_path):
    """The reference helper stores a credential and answers get, list and a
    missing get; ours answers the same requests: same members, same
    not-found line, same exit codes."""
    script = tmp_path / "reference.sh"
    script.write_text(f"""set -e
echo -n pw | {KEYRING} --unlock --components=secrets >/dev/null
echo '{{"ServerURL":"{REGISTRY}","Username":"oauth2","Secret":"reference-secret"}}' | {REFERENCE} store
echo '{REGISTRY}' | {REFERENCE} get > {tmp_path}/get.json
{REFERENCE} list > {tmp_path}/list.json
set +e
echo 'https://missing.example.com' | {REFERENCE} get > {tmp_path}/missing.txt
echo $? > {tmp_path}/missing.code
""")
    env = dict(cli.env, HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "data"), XDG_RUNTIME_DIR=str(tmp_path))
    ran = subprocess.run([SESSION, "--", "sh", str(script)], env=env, capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    reference_get = json.loads((tmp_path / "get.json").read_text())
    reference_list = json.loads((tmp_path / "list.json").read_text())
    ours_get = json.loads(cli.run("get", input=REGISTRY, binary=helper).stdout)
    ours_list = json.loads(cli.run("list", binary=helper).stdout)
    assert sorted(reference_get) == sorted(ours_get) == ["Secret", "ServerURL", "Username"]
    assert reference_get["ServerURL"] == ours_get["ServerURL"] and reference_get["Username"] == ours_get["Username"]
    assert reference_list == ours_list == {REGISTRY: "oauth2"}
    missing = cli.run("get", input="https://missing.example.com", binary=helper)
    assert (tmp_path / "missing.txt").read_text() == missing.stdout == NOT_FOUND
    assert int((tmp_path / "missing.code").read_text()) == missing.returncode == 1
