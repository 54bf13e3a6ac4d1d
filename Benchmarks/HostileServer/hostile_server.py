"""A provider that misbehaves at the HTTP level, for the memory-under-attack
benchmark (run.sh). Its discovery document is well formed; the endpoint under
attack answers with one fault:

  endless   200, no Content-Length, an endless body
  huge      200, Content-Length: 4 GiB, then an endless body
  drip      200, no Content-Length, one byte every 0.5 s

Usage: hostile_server.py FAULT TARGET   (TARGET: discovery or token)
Prints the port it listens on (127.0.0.1), then serves until killed.
"""
import socket
import sys
import threading
import time
import urllib.parse

FAULT, TARGET = sys.argv[1], sys.argv[2]
CHUNK = b" " * 65536


def send_fault(conn):
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
    if FAULT == "huge":
        head += b"Content-Length: 4294967296\r\n"
    conn.sendall(head + b"Connection: close\r\n\r\n")
    while True:
        if FAULT == "drip":
            conn.sendall(b" ")
            time.sleep(0.5)
        else:
            conn.sendall(CHUNK)


def answer(conn, status, body=b"", headers=()):
    head = f"HTTP/1.1 {status} X\r\nContent-Length: {len(body)}\r\nConnection: close\r\n"
    for name, value in headers:
        head += f"{name}: {value}\r\n"
    conn.sendall(head.encode() + b"\r\n" + body)


def serve(conn, port):
    try:
        request = conn.recv(65536).decode("latin-1")
        target = request.split(" ")[1] if " " in request else "/"
        path, _, query = target.partition("?")
        issuer = f"http://127.0.0.1:{port}"
        if path == "/.well-known/openid-configuration":
            if TARGET == "discovery":
                return send_fault(conn)
            document = ('{"issuer":"%s","authorization_endpoint":"%s/authorize","token_endpoint":"%s/token",'
                        '"response_types_supported":["code"],"code_challenge_methods_supported":["S256"]}') % (issuer, issuer, issuer)
            return answer(conn, 200, document.encode(), [("Content-Type", "application/json")])
        if path == "/authorize":
            params = dict(urllib.parse.parse_qsl(query))
            location = params["redirect_uri"] + "?" + urllib.parse.urlencode(
                {"code": "bench-code", "state": params.get("state", ""), "iss": issuer})
            return answer(conn, 302, b"", [("Location", location)])
        if path == "/token":
            return send_fault(conn)
        return answer(conn, 404)
    except OSError:
        pass
    finally:
        conn.close()


def main():
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    port = listener.getsockname()[1]
    print(port, flush=True)
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn, port), daemon=True).start()


main()
