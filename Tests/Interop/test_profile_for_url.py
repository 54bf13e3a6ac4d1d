"""Identity per context: `authflow request URL` and `authflow token --for URL`
choose the profile whose URLs serve that URL (the credential helpers' rule),
`AUTHFLOW_PROFILE` and `--profile` override it, and nothing is a global
"active" profile. Two profiles sign in to the embedded provider
(credential_fixtures.py) and claim two paths of one API on 127.0.0.1, which
answers with the Authorization header it was sent."""

import http.server
import json
import subprocess
import threading

import pytest

from credential_fixtures import AUTHFLOW_BIN, CLI, describe, provider  # noqa: F401

pytestmark = pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set")


class EchoHandler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = json.dumps({"path": self.path, "authorization": self.headers.get("Authorization", "")}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def api():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), EchoHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def cli(provider, api, tmp_path):  # noqa: F811
    cli = CLI(tmp_path)
    for profile, path in (("team-a", "/a"), ("team-b", "/b")):
        cli.login(provider, profile)
        added = cli.run("credential", "hosts", "--profile", profile, "--add", api + path)
        assert added.returncode == 0, describe(added)
    cli.env.pop("AUTHFLOW_PROFILE", None)
    return cli


def sent_token(cli, url, *args, env=None):
    result = cli.run("request", *args, url, env=env)
    assert result.returncode == 0, describe(result)
    return json.loads(result.stdout)["authorization"].removeprefix("Bearer ")


def test_request_uses_the_profile_whose_urls_serve_the_url(cli, api):
    token_a, token_b = cli.token("team-a"), cli.token("team-b")
    assert token_a != token_b
    assert sent_token(cli, api + "/a/items") == token_a
    assert sent_token(cli, api + "/b/items?x=1") == token_b


def test_token_for_url_uses_that_profile(cli, api):
    for path, profile in (("/a/repo", "team-a"), ("/b", "team-b")):
        result = cli.run("token", "--for", api + path)
        assert result.returncode == 0, describe(result)
        assert result.stdout.strip() == cli.token(profile)


def test_two_profiles_of_one_host_work_in_parallel(cli, api):
    # Started together, each from its URL; neither changes what the other gets.
    processes = [subprocess.Popen([AUTHFLOW_BIN, "token", "--for", api + path], env=cli.env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True) for path in ("/a", "/b") * 4]
    outputs = [process.communicate(timeout=60) for process in processes]
    assert [process.returncode for process in processes] == [0] * 8, outputs
    tokens = [out.strip() for out, _ in outputs]
    assert set(tokens[0::2]) == {cli.token("team-a")} and set(tokens[1::2]) == {cli.token("team-b")}


def test_authflow_profile_overrides_the_url_and_profile_overrides_both(cli, api):
    token_b = cli.token("team-b")
    assert sent_token(cli, api + "/a/items", env={"AUTHFLOW_PROFILE": "team-b"}) == token_b
    overridden = cli.run("token", "--for", api + "/a", env={"AUTHFLOW_PROFILE": "team-b"})
    assert overridden.stdout.strip() == token_b
    assert sent_token(cli, api + "/b/items", "--profile", "team-a", env={"AUTHFLOW_PROFILE": "team-b"}) == cli.token("team-a")


def test_a_url_no_profile_serves_falls_back_to_default(cli, api):
    result = cli.run("token", "--for", api + "/c")
    assert result.returncode == 6, describe(result)
    assert "default" in result.stderr


def test_two_equal_claims_are_an_error_not_a_guess(cli, api):
    added = cli.run("credential", "hosts", "--profile", "team-b", "--add", api + "/a")
    assert added.returncode == 0, describe(added)
    result = cli.run("request", api + "/a/items")
    assert result.returncode == 1, describe(result)
    assert f"profiles team-a and team-b both claim {api}/a/items" in result.stderr


def test_for_needs_an_absolute_url(cli):
    result = cli.run("token", "--for", "not a url")
    assert result.returncode == 2, describe(result)
    assert "--for takes an absolute URL" in result.stderr
