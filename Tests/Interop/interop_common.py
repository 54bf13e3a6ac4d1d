"""Values and helpers shared by the interop servers, servers.py and the tests."""

import json
import os
import tempfile

# One test user, identical on both servers, so browser.py's defaults work for both.
USERNAME = "alice"
PASSWORD = "wonderland-Passw0rd"

# Registered redirect URI. Both servers accept any port on 127.0.0.1 for it
# (RFC 8252 §7.3).
REDIRECT_URI = "http://127.0.0.1/callback"

# Client secrets deliberately contain characters that change under
# application/x-www-form-urlencoded encoding (RFC 6749 §2.3.1): a client that
# puts them into HTTP Basic without encoding them first is refused, because
# "%41" decodes to "A" and "+" decodes to a space.
CONFIDENTIAL_SECRET_DOT = "dot+s3cr/t=with%41chars"
AUTHLIB_BASIC_CLIENT_ID = "authflow+basic/client=id%41"
AUTHLIB_BASIC_CLIENT_SECRET = "s3cr+t/with=chars%41"
AUTHLIB_POST_CLIENT_ID = "authflow-authlib-post"
AUTHLIB_POST_CLIENT_SECRET = "p0st+s3cr/t=%41x"
AUTHLIB_PUBLIC_CLIENT_ID = "authflow-authlib-public"
# Device authorization grant (RFC 8628) clients.
AUTHLIB_DEVICE_CLIENT_ID = "authflow-authlib-device"
AUTHLIB_DEVICE_CONFIDENTIAL_CLIENT_ID = "authflow+device/basic=%41"
AUTHLIB_DEVICE_CONFIDENTIAL_CLIENT_SECRET = "d3v+ce/s3cr=t%41"
AUTHLIB_DEVICE_SLOW_CLIENT_ID = "authflow-authlib-device-slow"
AUTHLIB_DEVICE_SHORT_CLIENT_ID = "authflow-authlib-device-short"
DOT_DEVICE_CLIENT_ID = "authflow-dot-device"


def generate_rsa_private_key_pem():
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode("ascii")


def write_json_atomic(path, data, mode=0o644):
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=2, sort_keys=True)
            f.write("\n")
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
