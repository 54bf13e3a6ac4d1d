#!/usr/bin/env python3
"""Headless "user" for the interop tests, used as $BROWSER by the authflow CLI.

    browser.py [ignored args...] URL

Opens URL in headless Chromium (Debian's /usr/bin/chromium driven by
/usr/bin/chromedriver through Selenium), signs in on the DOT or Authlib login
page, approves (or, with INTEROP_BROWSER_ACTION=deny, denies) the consent page,
and waits until the browser has reached the client's loopback redirect URI
(http://127.0.0.1:PORT/callback). Exit 0 then; non-zero with a diagnostic on
stderr otherwise.

Device verification pages (RFC 8628, the URL is verification_uri_complete)
work the same way: sign in, submit the pre-filled user code (DOT asks for it
on a page of its own; INTEROP_USER_CODE fills it in when the URL has none),
approve or deny, and stop at the server's "device approved/denied" page.

Environment:
    INTEROP_USERNAME / INTEROP_PASSWORD   credentials (default: the test user)
    INTEROP_BROWSER_ACTION                approve (default) or deny
    INTEROP_USER_CODE                     device user code to type when the page has none
    INTEROP_BROWSER_TIMEOUT               seconds for the whole flow (default 30)
    INTEROP_CHROMIUM / INTEROP_CHROMEDRIVER  binary paths (Debian defaults)
    INTEROP_BROWSER_TITLE_FILE            where to write the title of the loopback page reached

It never prints the query string of any URL (it holds the code and state), nor
any token. It always terminates: every wait is bounded, a watchdog kills it if
anything hangs, and Chromium is shut down in a finally block.
"""

import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from urllib.parse import urlsplit, urlunsplit

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

DEFAULT_USERNAME = "alice"
DEFAULT_PASSWORD = "wonderland-Passw0rd"
try:  # keep one source of truth when available
    from interop_common import PASSWORD as DEFAULT_PASSWORD, USERNAME as DEFAULT_USERNAME  # noqa: F811
except Exception:  # pragma: no cover - the defaults above match
    pass

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_TIMEOUT = 3


def log(msg):
    print(f"browser.py: {msg}", file=sys.stderr, flush=True)


def redact(url):
    """URL without query and fragment (they may carry code/state/tokens)."""
    try:
        parts = urlsplit(url or "")
        return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))
    except ValueError:
        return "(unparseable URL)"


def is_callback(url):
    try:
        parts = urlsplit(url or "")
        return (
            parts.scheme == "http"
            and parts.hostname == "127.0.0.1"
            and parts.port is not None
            # /callback, or an issuer-specific /callback/<suffix> (the CLI's
            # per-issuer redirect URIs against mix-up)
            and (parts.path == "/callback" or parts.path.startswith("/callback/"))
        )
    except ValueError:
        return False


class Watchdog:
    """Hard stop: if the process is still running after `seconds`, kill the
    chromedriver (and its Chromium) and exit."""

    def __init__(self, seconds):
        self.service = None
        self.timer = threading.Timer(seconds, self._fire)
        self.timer.daemon = True

    def start(self):
        self.timer.start()

    def cancel(self):
        self.timer.cancel()

    def _fire(self):
        log("watchdog: giving up (hard time limit reached)")
        _kill_service(self.service)
        os._exit(EXIT_TIMEOUT)


def _kill_service(service):
    proc = getattr(service, "process", None) if service else None
    if proc is None or proc.poll() is not None:
        return
    try:
        # chromedriver was started in its own session: kill the whole group
        # (chromedriver + Chromium and its helpers).
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        try:
            proc.kill()
        except OSError:
            pass


def make_driver(profile_dir, watchdog):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium = os.environ.get("INTEROP_CHROMIUM", "/usr/bin/chromium")
    chromedriver = os.environ.get("INTEROP_CHROMEDRIVER", "/usr/bin/chromedriver")
    for path in (chromium, chromedriver):
        if not os.access(path, os.X_OK):
            raise RuntimeError(f"{path} not found or not executable (apt-get install chromium chromium-driver)")

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-extensions",
        "--disable-background-networking",
        "--disable-sync",
        "--disable-features=Translate,OptimizationHints,MediaRouter,HttpsUpgrades,HttpsFirstBalancedModeAutoEnable",
        "--password-store=basic",
        "--window-size=1024,768",
        f"--user-data-dir={profile_dir}",
    ):
        options.add_argument(arg)
    options.page_load_strategy = "normal"

    # Explicit driver path: Selenium Manager is never consulted (no downloads).
    service = Service(
        executable_path=chromedriver,
        log_output=subprocess_devnull(),
        popen_kw={"start_new_session": True},
    )
    watchdog.service = service
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_page_load_timeout(20)
    driver.set_script_timeout(10)
    driver.implicitly_wait(0)
    return driver, service


def subprocess_devnull():
    import subprocess

    return subprocess.DEVNULL


def find_first(driver, selectors):
    from selenium.webdriver.common.by import By

    for sel in selectors:
        try:
            elements = driver.find_elements(By.CSS_SELECTOR, sel)
        except Exception:
            continue
        for el in elements:
            try:
                if el.is_displayed():
                    return el
            except Exception:
                continue
    return None


LOGIN_USER = ["form#login-form input[name=username]", "input[name=username]", "input#id_username"]
LOGIN_PASS = ["form#login-form input[name=password]", "input[type=password]"]
LOGIN_SUBMIT = ["#login-submit", "form#login-form [type=submit]", "form [type=submit]"]
# DOT: <input type=submit name=allow value=Authorize> and a nameless Cancel
# input; Authlib server: <button id=approve> / <button id=deny>.
APPROVE = ["button#approve", "form#authorizationForm input[name=allow]", "button[name=action][value=accept]"]
DENY = ["button#deny", "form#authorizationForm input[type=submit]:not([name=allow])", "button[name=action][value=deny]"]
# Device flow: DOT's user-code page (an input named user_code and a Verify
# button) and the final pages (Authlib: #device-done; DOT: <h1>Device Authorized</h1>).
USER_CODE = ["input[name=user_code]"]
USER_CODE_SUBMIT = ["form button[type=submit]", "form input[type=submit]"]


def device_done(driver):
    """True on a device verification result page (approved or denied)."""
    from selenium.webdriver.common.by import By

    if find_first(driver, ["#device-done"]) is not None:
        return True
    try:
        headings = driver.find_elements(By.TAG_NAME, "h1")
    except Exception:
        return False
    for heading in headings:
        try:
            text = " ".join(heading.text.split())
        except Exception:
            continue
        if text in ("Device Authorized", "Device Denied"):
            return True
    return False


def page_ready(driver):
    try:
        return driver.execute_script("return document.readyState") == "complete"
    except Exception:
        return False


def run_flow(driver, url, username, password, action, deadline):
    from selenium.common.exceptions import TimeoutException

    try:
        driver.get(url)
    except TimeoutException:
        log("initial page load timed out; continuing to poll")

    logins = 0
    consents = 0
    last_action_url = None
    while time.monotonic() < deadline:
        try:
            current = driver.current_url
        except Exception as e:  # driver hiccup: retry until the deadline
            log(f"cannot read current URL: {type(e).__name__}")
            time.sleep(0.2)
            continue

        if is_callback(current):
            # The redirect reached the client's loopback listener. Give the page
            # a moment to finish loading (the listener answers a small page).
            settle = min(deadline, time.monotonic() + 5)
            while time.monotonic() < settle and not page_ready(driver):
                time.sleep(0.1)
            record_title(driver)
            return True

        if not page_ready(driver):
            time.sleep(0.1)
            continue

        if device_done(driver):
            return True

        user_field = find_first(driver, LOGIN_USER)
        pass_field = find_first(driver, LOGIN_PASS)
        if user_field is not None and pass_field is not None:
            if find_first(driver, ["#login-error"]) is not None or logins >= 3:
                log("login was refused (wrong INTEROP_USERNAME / INTEROP_PASSWORD?)")
                return False
            logins += 1
            user_field.clear()
            user_field.send_keys(username)
            pass_field.clear()
            pass_field.send_keys(password)
            submit = find_first(driver, LOGIN_SUBMIT)
            last_action_url = redact(current)
            if submit is not None:
                submit.click()
            else:
                pass_field.submit()
            _wait_for_navigation(driver, current, deadline)
            continue

        button = find_first(driver, DENY if action == "deny" else APPROVE)
        if button is not None:
            if consents >= 3:
                log("consent page keeps coming back")
                return False
            consents += 1
            last_action_url = redact(current)
            button.click()
            _wait_for_navigation(driver, current, deadline)
            continue

        if action == "deny" and find_first(driver, APPROVE) is not None:
            log("consent page has no deny/cancel button")
            return False

        code_field = find_first(driver, USER_CODE)
        if code_field is not None:
            if consents >= 3:
                log("device code page keeps coming back (wrong or expired user code?)")
                return False
            consents += 1
            if not (code_field.get_attribute("value") or "").strip():
                typed = os.environ.get("INTEROP_USER_CODE", "")
                if not typed:
                    log("device code page without a code and no INTEROP_USER_CODE")
                    return False
                code_field.send_keys(typed)
            submit = find_first(driver, USER_CODE_SUBMIT)
            last_action_url = redact(current)
            if submit is not None:
                submit.click()
            else:
                code_field.submit()
            _wait_for_navigation(driver, current, deadline)
            continue

        time.sleep(0.2)
    log(f"timed out (last action on {last_action_url or 'none'})")
    return False


def _wait_for_navigation(driver, old_url, deadline):
    end = min(deadline, time.monotonic() + 10)
    while time.monotonic() < end:
        try:
            if driver.current_url != old_url:
                return
        except Exception:
            pass
        time.sleep(0.1)


def record_title(driver):
    """Writes the loopback page's title (what the user sees: "Signed in",
    "Sign-in failed", "Signed out") to INTEROP_BROWSER_TITLE_FILE when set."""
    path = os.environ.get("INTEROP_BROWSER_TITLE_FILE")
    if not path:
        return
    try:
        title = driver.title
    except Exception:
        title = "(unknown)"
    with open(path + ".tmp", "w", encoding="utf-8") as out:
        out.write(title)
    os.replace(path + ".tmp", path)


def diagnose(driver):
    try:
        current = redact(driver.current_url)
    except Exception:
        current = "(unknown)"
    try:
        title = driver.title
    except Exception:
        title = "(unknown)"
    log(f"current URL (query removed): {current}")
    log(f"page title: {title!r}")


def main(argv):
    if len(argv) < 2 or not argv[-1].strip():
        log("usage: browser.py URL")
        return EXIT_USAGE
    url = argv[-1]
    if not url.startswith(("http://", "https://")):
        log(f"refusing to open a non-http(s) URL: {redact(url)}")
        return EXIT_USAGE

    username = os.environ.get("INTEROP_USERNAME") or DEFAULT_USERNAME
    password = os.environ.get("INTEROP_PASSWORD") or DEFAULT_PASSWORD
    action = (os.environ.get("INTEROP_BROWSER_ACTION") or "approve").strip().lower()
    if action not in ("approve", "deny"):
        log(f"INTEROP_BROWSER_ACTION must be approve or deny, not {action!r}")
        return EXIT_USAGE
    try:
        flow_timeout = float(os.environ.get("INTEROP_BROWSER_TIMEOUT", "30"))
    except ValueError:
        flow_timeout = 30.0

    # Start-up (Chromium + chromedriver) + flow + shutdown, with margin.
    watchdog = Watchdog(flow_timeout + 60)
    watchdog.start()
    profile_dir = tempfile.mkdtemp(prefix="authflow-interop-chromium-")
    driver = None
    service = None
    ok = False
    try:
        driver, service = make_driver(profile_dir, watchdog)
        deadline = time.monotonic() + flow_timeout
        ok = run_flow(driver, url, username, password, action, deadline)
        if not ok:
            diagnose(driver)
    except Exception as e:
        # Exception texts from Selenium can contain the URL: print the type and
        # a redacted first line only.
        first = str(e).splitlines()[0] if str(e) else ""
        if "?" in first:
            first = first.split("?", 1)[0] + "?…"
        log(f"failed: {type(e).__name__}: {first}")
        if driver is not None:
            diagnose(driver)
        ok = False
    finally:
        if driver is not None:
            quitter = threading.Thread(target=_quit, args=(driver,), daemon=True)
            quitter.start()
            quitter.join(15)
        _kill_service(service)
        shutil.rmtree(profile_dir, ignore_errors=True)
        watchdog.cancel()
    return EXIT_OK if ok else EXIT_FAILED


def _quit(driver):
    try:
        driver.quit()
    except Exception:
        pass


if __name__ == "__main__":
    sys.exit(main(sys.argv))
