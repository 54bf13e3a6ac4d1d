"""What the browser sees on the loopback listener, and `authflow logout`'s
RP-initiated logout, end to end.

- An error response (a form-posted `login_required`, the OpenID Foundation RP
  test `rp-response_mode-form_post-error`, or a redirected `access_denied`)
  shows headless Chromium the listener's error page, never "Signed in".
- `authflow logout` against the embedded provider (`authflow provider
  serve`): the browser opener gets only a loopback URL; the listener's
  one-time page POSTs the logout form (ID token in the body); the provider
  redirects back to the loopback `post_logout_redirect_uri` with the state;
  the CLI reports `end_session: confirmed`. The opener's output never reaches
  the terminal.

Needs AUTHFLOW_BIN (skipped otherwise); the Chromium tests need
/usr/bin/chromium and chromedriver (skipped otherwise).
"""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from provider_fixtures.profiles import PROFILES
from provider_fixtures.server import ProviderFixture

AUTHFLOW_BIN = os.environ.get("AUTHFLOW_BIN")
HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE_BROWSER = os.path.join(HERE, "provider_fixtures", "browser.py")
CHROMIUM_BROWSER = f"{sys.executable} {os.path.join(HERE, 'browser.py')}"
HAVE_CHROMIUM = os.path.exists("/usr/bin/chromium") and os.path.exists("/usr/bin/chromedriver")
needs_chromium = pytest.mark.skipif(not HAVE_CHROMIUM, reason="chromium/chromedriver not installed")

pytestmark = pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set")

PROVIDER_CONFIG = {
    "port": 0,
    "sign_in": "automatic",
    "automatic_user": "alice-1",
    "clients": [
        {"client_id": "cli", "redirect_uris": ["http://127.0.0.1/callback"],
         "grant_types": ["authorization_code", "refresh_token"], "scope": "openid profile offline_access"},
        {"client_id": "cli-other-return", "redirect_uris": ["http://127.0.0.1/callback"],
         "post_logout_redirect_uris": ["http://127.0.0.1/bye"],
         "grant_types": ["authorization_code", "refresh_token"], "scope": "openid profile offline_access"},
    ],
    "users": [{"sub": "alice-1", "username": "alice", "password": "pw", "claims": {"name": "Alice"}}],
}

# A $BROWSER that records its command line, prints the URL on both streams
# (as xdg-open does), then plays the fixture browser.
RECORDING_BROWSER = """
import os, subprocess, sys
with open(os.environ["ARGV_FILE"], "w") as out:
    out.write("\\n".join(sys.argv))
print("OPENER-STDOUT " + sys.argv[-1])
print("OPENER-STDERR " + sys.argv[-1], file=sys.stderr)
sys.exit(subprocess.call([sys.executable, os.environ["FIXTURE_BROWSER"], sys.argv[-1]]))
"""


@pytest.fixture(scope="module")
def provider(tmp_path_factory):
    path = tmp_path_factory.mktemp("provider") / "provider.json"
    path.write_text(json.dumps(PROVIDER_CONFIG))
    process = subprocess.Popen([AUTHFLOW_BIN, "provider", "serve", "--config", str(path)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    issuer = None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and issuer is None:
        line = process.stdout.readline()
        if not line:
            break
        if line.startswith("issuer: "):
            issuer = line.split(": ", 1)[1].strip()
    if issuer is None:
        process.kill()
        pytest.fail("the embedded provider did not start")
    yield issuer
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=10)


class CLI:
    def __init__(self, tmp_path, browser):
        self.tmp_path = tmp_path
        self.env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path), BROWSER=browser, FIXTURE_BROWSER=FIXTURE_BROWSER,
                        ARGV_FILE=str(tmp_path / "argv"), INTEROP_BROWSER_TITLE_FILE=str(tmp_path / "title"))

    def run(self, *args, timeout=90):
        return subprocess.run([AUTHFLOW_BIN, *args], env=self.env, capture_output=True, text=True, timeout=timeout)

    def login(self, issuer, client_id="cli"):
        saved = self.env["BROWSER"]
        self.env["BROWSER"] = f"{sys.executable} {FIXTURE_BROWSER}"
        result = self.run("login", "--issuer", issuer, "--client-id", client_id, "--scope", "openid profile offline_access",
                          "--browser-timeout", "20", "--json", "--show-tokens")
        self.env["BROWSER"] = saved
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    def title(self, wait=60):
        """The loopback page's title as browser.py recorded it. The browser
        runs on after the CLI returns (the CLI does not wait for it), so this
        waits for the file, bounded."""
        path = self.tmp_path / "title"
        deadline = time.monotonic() + wait
        while not path.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        return path.read_text() if path.exists() else None


# A $BROWSER that loads the listener's page and posts the form at once, but
# waits 8 s (a user reading a "sign out?" page) before it follows the
# provider's redirect back.
SLOW_BROWSER = """
import html, re, sys, time, urllib.parse
sys.path.insert(0, %r)
from browser import fetch
status, headers, body = fetch(sys.argv[-1])
form = re.search(r'<form method="post" action="([^"]+)">(.*)</form>', body)
fields = re.findall(r'<input type="hidden" name="([^"]*)" value="([^"]*)">', form.group(2))
data = urllib.parse.urlencode([(html.unescape(n), html.unescape(v)) for n, v in fields]).encode()
status, headers, _ = fetch(html.unescape(form.group(1)), data)
time.sleep(8)
fetch(headers["Location"])
""" % os.path.join(HERE, "provider_fixtures")


def recording_browser(tmp_path):
    script = tmp_path / "recording_browser.py"
    script.write_text(RECORDING_BROWSER)
    return f"{sys.executable} {script}"


def test_logout_posts_the_form_and_the_provider_confirms(provider, tmp_path):
    cli = CLI(tmp_path, recording_browser(tmp_path))
    id_token = cli.login(provider)["id_token"]
    result = cli.run("logout", "--json", "--browser-timeout", "20")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["end_session"] == "confirmed"
    assert report["revoked"] is True and report["signed_in"] is True and report["profile_deleted"] is False
    # The opener got a loopback URL and nothing secret; its output was dropped.
    argv = (tmp_path / "argv").read_text()
    opened = argv.splitlines()[-1]
    assert opened.startswith("http://127.0.0.1:") and "/end-session/" in opened and "?" not in opened
    assert id_token not in argv
    for stream in (result.stdout, result.stderr):
        assert "OPENER-" not in stream
        assert id_token not in stream


def test_logout_human_output_says_the_provider_confirmed(provider, tmp_path):
    cli = CLI(tmp_path, recording_browser(tmp_path))
    cli.login(provider)
    result = cli.run("logout", "--browser-timeout", "20")
    assert result.returncode == 0, result.stderr
    assert "The provider confirmed the end of its session." in result.stderr
    assert "OPENER-" not in result.stderr + result.stdout


def test_unregistered_post_logout_redirect_is_not_confirmed(provider, tmp_path):
    cli = CLI(tmp_path, recording_browser(tmp_path))
    cli.login(provider, client_id="cli-other-return")
    started = time.monotonic()
    result = cli.run("logout", "--json", "--browser-timeout", "3")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["end_session"] == "not_confirmed"
    assert time.monotonic() - started < 30
    assert "did not confirm" in result.stderr


def test_logout_at_a_provider_that_never_redirects_back_returns_after_the_short_default_wait(provider, tmp_path):
    """The provider shows its own page and never redirects back (the loopback
    URI is not registered for logout, as at Okta, Auth0 and Entra ID): with no
    --browser-timeout, logout returns not_confirmed after the default wait of
    a few seconds. Before, it waited 300 s (this run's 60 s bound fails)."""
    cli = CLI(tmp_path, recording_browser(tmp_path))
    cli.login(provider, client_id="cli-other-return")
    result = cli.run("logout", "--json", timeout=60)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["end_session"] == "not_confirmed" and report["revoked"] is True
    assert "did not confirm the end of its session within 5 s" in result.stderr
    assert "--browser-timeout SECONDS waits longer" in result.stderr


def test_logout_browser_timeout_still_waits_for_a_slow_confirmation(provider, tmp_path):
    """A browser that takes 8 s between loading the page and following the
    provider's redirect back (a user confirming): the default wait reports
    not_confirmed, --browser-timeout 60 waits for it and reports confirmed."""
    slow = tmp_path / "slow_browser.py"
    slow.write_text(SLOW_BROWSER)
    cli = CLI(tmp_path, f"{sys.executable} {slow}")
    cli.login(provider)
    confirmed = cli.run("logout", "--json", "--browser-timeout", "60", timeout=90)
    assert confirmed.returncode == 0, confirmed.stderr
    assert json.loads(confirmed.stdout)["end_session"] == "confirmed", confirmed.stderr
    cli.login(provider)
    hurried = cli.run("logout", "--json", timeout=60)
    assert hurried.returncode == 0, hurried.stderr
    assert json.loads(hurried.stdout)["end_session"] == "not_confirmed", hurried.stderr


def test_failing_opener_is_reported_and_its_output_dropped(provider, tmp_path):
    script = tmp_path / "failing.py"
    script.write_text("import sys\nprint('OPENER-STDERR ' + sys.argv[-1], file=sys.stderr)\nsys.exit(7)\n")
    cli = CLI(tmp_path, f"{sys.executable} {script}")
    cli.login(provider)
    result = cli.run("logout", "--json", "--browser-timeout", "3")
    assert result.returncode == 0, result.stderr
    # The page was never loaded: the URL is printed instead (without the ID token).
    assert json.loads(result.stdout)["end_session"] == "not_opened"
    assert "the browser command exited with status 7" in result.stderr
    assert "The browser did not load the end-session page." in result.stderr
    assert "End the provider session at:" in result.stderr
    assert "OPENER-" not in result.stderr


def test_no_browser_prints_the_url_without_the_id_token(provider, tmp_path):
    cli = CLI(tmp_path, recording_browser(tmp_path))
    id_token = cli.login(provider)["id_token"]
    result = cli.run("logout", "--no-browser", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["end_session"] == "not_opened"
    assert provider + "/end-session?" in result.stderr
    assert id_token not in result.stderr and "id_token_hint" not in result.stderr
    assert not (tmp_path / "argv").exists()


def test_logout_when_not_signed_in(provider, tmp_path):
    cli = CLI(tmp_path, recording_browser(tmp_path))
    cli.login(provider)
    assert cli.run("logout", "--no-browser").returncode == 0
    again = cli.run("logout", "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout) == {"profile": "default", "signed_in": False, "revoked": False,
                                        "profile_deleted": False, "end_session": "not_signed_in"}


@needs_chromium
def test_logout_in_chromium_is_confirmed(provider, tmp_path):
    cli = CLI(tmp_path, CHROMIUM_BROWSER)
    cli.login(provider)
    result = cli.run("logout", "--json", "--browser-timeout", "60", timeout=150)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["end_session"] == "confirmed"
    assert cli.title() == "Signed out"


@needs_chromium
@pytest.mark.parametrize("name,error", [("apple", "login_required"), ("google", "access_denied")])
def test_error_response_shows_chromium_the_error_page(name, error, tmp_path):
    """`rp-response_mode-form_post-error` (apple: form_post) and a redirected
    error (google: query): the terminal and the browser both say it failed;
    the page echoes nothing the server sent."""
    profile = dict(PROFILES[name], authorize_error=error, authorize_error_description="EVIL-DESCRIPTION")
    with ProviderFixture(profile) as fixture:
        cli = CLI(tmp_path, CHROMIUM_BROWSER)
        cli.env["PROVIDER_SECRET"] = profile.get("client_secret", "")
        command = [a.replace("{base}", fixture.base) for a in profile["command"]]
        result = cli.run("login", *command, "--browser-timeout", "60", "--json", timeout=150)
        assert result.returncode == 3, result.stdout + result.stderr
        assert json.loads(result.stdout)["error"]["oauth_error"] == error
        assert cli.title() == "Sign-in failed"


@needs_chromium
def test_accepted_code_shows_chromium_the_success_page(tmp_path):
    profile = PROFILES["apple"]
    with ProviderFixture(profile) as fixture:
        cli = CLI(tmp_path, CHROMIUM_BROWSER)
        cli.env["PROVIDER_SECRET"] = profile.get("client_secret", "")
        command = [a.replace("{base}", fixture.base) for a in profile["command"]]
        result = cli.run("login", *command, "--browser-timeout", "60", "--json", timeout=150)
        assert result.returncode == 0, result.stdout + result.stderr
        assert cli.title() == "Signed in"
