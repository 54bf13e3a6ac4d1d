"""A stub Kubernetes API server on 127.0.0.1 over TLS (kubectl insists on
https for bearer tokens): a self-signed certificate made by `openssl` for
IP 127.0.0.1, one path (`/api/authflow-check`) that answers 200 with the
bearer token's fingerprint when the token is one the test accepts, 401
otherwise. It records every bearer token it was sent."""

import http.server
import json
import ssl
import subprocess
import threading


def self_signed(directory):
    key, cert = directory / "apiserver.key", directory / "apiserver.crt"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-keyout", str(key), "-out", str(cert), "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True, timeout=30)
    return key, cert


class KubeStub:
    def __init__(self, directory, accept):
        self.accept = accept  # token -> bool
        self.seen = []
        self.key, self.cert = self_signed(directory)
        stub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                header = self.headers.get("Authorization", "")
                token = header[7:] if header.startswith("Bearer ") else None
                stub.seen.append(token)
                ok = self.path == "/api/authflow-check" and token is not None and stub.accept(token)
                body = json.dumps({"kind": "Status", "status": "Success" if ok else "Failure",
                                   "code": 200 if ok else 401}).encode()
                self.send_response(200 if ok else 401)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(str(self.cert), str(self.key))
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.url = f"https://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def kubeconfig(self, path, command, args, api_version="client.authentication.k8s.io/v1", interactive_mode="IfAvailable"):
        exec_section = {"apiVersion": api_version, "command": command, "args": args}
        if interactive_mode:
            exec_section["interactiveMode"] = interactive_mode
        config = {
            "apiVersion": "v1", "kind": "Config", "current-context": "stub",
            "clusters": [{"name": "stub", "cluster": {"server": self.url, "certificate-authority": str(self.cert)}}],
            "users": [{"name": "authflow", "user": {"exec": exec_section}}],
            "contexts": [{"name": "stub", "context": {"cluster": "stub", "user": "authflow"}}],
        }
        path.write_text(json.dumps(config))
        return str(path)

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
