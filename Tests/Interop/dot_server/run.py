#!/usr/bin/env python3
"""Start the django-oauth-toolkit interop authorization server.

    python run.py --port PORT --data-dir DIR --fixtures-out FILE

Creates a fresh sqlite database in DIR, a new RSA key for ID tokens, the test
user and the OAuth clients, writes their credentials as JSON to FILE, then
serves on 127.0.0.1:PORT until killed.
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

from interop_common import (  # noqa: E402
    CONFIDENTIAL_SECRET_DOT,
    DOT_DEVICE_CLIENT_ID,
    PASSWORD,
    REDIRECT_URI,
    USERNAME,
    generate_rsa_private_key_pem,
    write_json_atomic,
)

CONFIDENTIAL_CLIENT_ID_DOT = "authflow-dot-confidential"
PUBLIC_CLIENT_ID_DOT = "authflow-dot-public"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--fixtures-out", required=True)
    args = parser.parse_args()

    os.makedirs(args.data_dir, exist_ok=True)
    key_file = os.path.join(args.data_dir, "dot-rsa.pem")
    with open(key_file, "w", encoding="ascii") as f:
        f.write(generate_rsa_private_key_pem())
    db = os.path.join(args.data_dir, "dot.sqlite3")
    if os.path.exists(db):
        os.remove(db)

    os.environ["INTEROP_DOT_PORT"] = str(args.port)
    os.environ["INTEROP_DOT_DATA_DIR"] = args.data_dir
    os.environ["INTEROP_DOT_RSA_KEY_FILE"] = key_file
    os.environ["DJANGO_SETTINGS_MODULE"] = "interop_dot.settings"

    import django

    django.setup()

    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.core.servers.basehttp import run
    from django.core.wsgi import get_wsgi_application
    from oauth2_provider.models import get_application_model

    call_command("migrate", verbosity=0, interactive=False)

    user = get_user_model().objects.create_user(
        username=USERNAME, password=PASSWORD, email=f"{USERNAME}@example.test",
        first_name="Alice", last_name="Interop",
    )
    Application = get_application_model()
    common = dict(
        user=user,
        redirect_uris=REDIRECT_URI,
        authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
        algorithm=Application.RS256_ALGORITHM,
        skip_authorization=False,
    )
    Application.objects.create(
        name="AuthFlow public", client_id=PUBLIC_CLIENT_ID_DOT,
        client_type=Application.CLIENT_PUBLIC, client_secret="", **common,
    )
    # DOT hashes client_secret on save (hash_client_secret=True): keep the plain one.
    Application.objects.create(
        name="AuthFlow confidential", client_id=CONFIDENTIAL_CLIENT_ID_DOT,
        client_type=Application.CLIENT_CONFIDENTIAL, client_secret=CONFIDENTIAL_SECRET_DOT,
        hash_client_secret=True, **common,
    )

    # RFC 8628: a public client whose grant type is the device code.
    Application.objects.create(
        name="AuthFlow device", client_id=DOT_DEVICE_CLIENT_ID, client_type=Application.CLIENT_PUBLIC,
        client_secret="", user=user, redirect_uris="", authorization_grant_type=Application.GRANT_DEVICE_CODE,
        algorithm=Application.RS256_ALGORITHM, skip_authorization=False,
    )

    base = f"http://127.0.0.1:{args.port}"
    write_json_atomic(args.fixtures_out, {
        "issuer": f"{base}/o",
        "username": USERNAME,
        "password": PASSWORD,
        "public_client_id": PUBLIC_CLIENT_ID_DOT,
        "confidential_client_id": CONFIDENTIAL_CLIENT_ID_DOT,
        "confidential_client_secret": CONFIDENTIAL_SECRET_DOT,
        "confidential_client_auth": "basic",
        "authorization_endpoint": f"{base}/o/authorize/",
        "token_endpoint": f"{base}/o/token/",
        "redirect_uri": REDIRECT_URI,
        "supports_deny": True,
        # Not in DOT's discovery document: clients must be told.
        "device_authorization_endpoint": f"{base}/o/device-authorization/",
        "device_short_authorization_endpoint": f"{base}/o/device-authorization-short/",
        "device_client_id": DOT_DEVICE_CLIENT_ID,
        "device_publishes_endpoint": False,
        "device_issues_id_token": False,
        "pid": os.getpid(),
    })

    print(f"DOT interop server listening on {base}", flush=True)
    run("127.0.0.1", args.port, get_wsgi_application(), ipv6=False, threading=True)


if __name__ == "__main__":
    main()
