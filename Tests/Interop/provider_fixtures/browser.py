"""A $BROWSER stand-in for the provider fixtures: opens the authorization URL,
then follows the provider's answer to the loopback listener — a redirect (GET)
or, for response_mode=form_post, the auto-submitting form (POST). Given the
logout page of `authflow logout` (a form that POSTs to the provider), it
submits the form and follows the provider's redirect back. Its `fetch` (one
request, no redirect followed) is form_browser.py's too."""

import html
import re
import sys
import urllib.error
import urllib.parse
import urllib.request


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def fetch(url, data=None):
    opener = urllib.request.build_opener(NoRedirect)
    request = urllib.request.Request(url, data=data, method="POST" if data is not None else "GET")
    if data is not None:
        request.add_header("Content-Type", "application/x-www-form-urlencoded")
    try:
        with opener.open(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode()


def main(url):
    status, headers, body = fetch(url)
    if status in (301, 302, 303, 307):
        fetch(headers["Location"])
        return 0
    form = re.search(r'<form method="post" action="([^"]+)">(.*)</form>', body)
    if status == 200 and form:
        fields = re.findall(r'<input type="hidden" name="([^"]*)" value="([^"]*)">', form.group(2))
        data = urllib.parse.urlencode([(html.unescape(n), html.unescape(v)) for n, v in fields]).encode()
        status, headers, _ = fetch(html.unescape(form.group(1)), data)
        if status in (301, 302, 303):  # a form to the provider (logout) that redirects back
            fetch(headers["Location"])
        return 0
    print(f"fixture browser: unexpected answer {status}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[-1]))
