#!/usr/bin/env python3
"""A $BROWSER stand-in for the embedded provider's login page, without Chromium:

    form_browser.py [ignored args...] URL

GETs the authorization URL, posts the login form back with the user's name and
password (INTEROP_USERNAME / INTEROP_PASSWORD, default demo / demo) and
"allow", and GETs the redirect the provider answers with — the client's
loopback listener. With FORM_BROWSER_ISS set, the redirect's `iss` is replaced
by that value first: an authorization response that claims another issuer
(the mix-up RFC 9207 guards against). Never prints a URL's query. Its requests
are provider_fixtures/browser.py's `fetch` (no redirects followed).
"""

import html
import os
import re
import sys
import urllib.parse

from provider_fixtures.browser import fetch


def forged(location, issuer):
    parts = urllib.parse.urlsplit(location)
    query = [(name, issuer if name == "iss" else value) for name, value in urllib.parse.parse_qsl(parts.query)]
    return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query)))


def main(url):
    status, _, page = fetch(url)
    form = re.search(r'<form method="post" action="([^"]+)">(.*?)</form>', page, re.S)
    if status != 200 or not form:
        print(f"form_browser: expected the login page, got HTTP {status}", file=sys.stderr)
        return 1
    fields = [(html.unescape(n), html.unescape(v)) for n, v in
              re.findall(r'<input type="hidden" name="([^"]*)" value="([^"]*)">', form.group(2))]
    fields += [("username", os.environ.get("INTEROP_USERNAME", "demo")),
               ("password", os.environ.get("INTEROP_PASSWORD", "demo")), ("decision", "allow")]
    action = urllib.parse.urljoin(url, html.unescape(form.group(1)))
    status, headers, _ = fetch(action, urllib.parse.urlencode(fields).encode())
    if status not in (302, 303) or "Location" not in headers:
        print(f"form_browser: the login was answered HTTP {status}", file=sys.stderr)
        return 1
    location = headers["Location"]
    if os.environ.get("FORM_BROWSER_ISS"):
        location = forged(location, os.environ["FORM_BROWSER_ISS"])
    fetch(location)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[-1]))
