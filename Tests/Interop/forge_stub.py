"""A small git forge on 127.0.0.1 for `git ls-remote`: the smart-HTTP ref
advertisement of one repository, behind HTTP Basic authentication whose
password must be an access token the provider's userinfo endpoint accepts.
It records the usernames and passwords it was sent (to check which token git
used) and answers 401 with `WWW-Authenticate: Basic` otherwise."""

import base64
import http.server
import threading

import requests

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def pkt(line):
    data = line.encode()
    return f"{len(data) + 4:04x}".encode() + data


ADVERTISEMENT = (pkt("# service=git-upload-pack\n") + b"0000"
                 + pkt(f"{COMMIT} HEAD\0symref=HEAD:refs/heads/main agent=forge-stub\n")
                 + pkt(f"{COMMIT} refs/heads/main\n") + b"0000")


class Forge:
    def __init__(self, userinfo):
        self.userinfo = userinfo
        self.seen = []  # (username, password) of every authenticated attempt
        self.refused = set()  # tokens this forge refuses even if valid
        forge = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                if not self.path.startswith("/team/repo.git/info/refs"):
                    self.send_error(404)
                    return
                header = self.headers.get("Authorization", "")
                if header.startswith("Basic "):
                    username, _, password = base64.b64decode(header[6:]).decode().partition(":")
                    forge.seen.append((username, password))
                    if password not in forge.refused and forge.valid(password):
                        self.send_response(200)
                        self.send_header("Content-Type", "application/x-git-upload-pack-advertisement")
                        self.send_header("Content-Length", str(len(ADVERTISEMENT)))
                        self.end_headers()
                        self.wfile.write(ADVERTISEMENT)
                        return
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="forge"')
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def valid(self, token):
        return requests.get(self.userinfo, headers={"Authorization": f"Bearer {token}"}, timeout=10).status_code == 200

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
