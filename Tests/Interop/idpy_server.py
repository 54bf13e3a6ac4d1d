#!/usr/bin/env python3
"""idpyoidc 5.0.0 OpenID Providers for AuthFlow's PAR, DPoP and JWT client
authentication interop tests.

    python idpy_server.py --port PORT --data-dir DIR --fixtures-out FILE

One Flask process serves two idpyoidc ``Server`` instances, both in memory:

* ``http://127.0.0.1:PORT`` — discovery, authorization, PAR (RFC 9126),
  token (authorization code with PKCE S256, refresh), userinfo, JWKS,
  introspection; client authentication ``none``, ``private_key_jwt`` and
  ``client_secret_jwt``;
* ``http://127.0.0.1:PORT/dpop`` — the same plus idpyoidc's DPoP add-on
  (RFC 9449) on the token and userinfo endpoints. The add-on makes a proof
  mandatory at the endpoints it is attached to, so bearer clients use the
  first issuer.

The user is fixed: idpyoidc's ``NoAuthn`` signs ``alice`` in and the grant is
given at once, so the authorization endpoint redirects straight to the
client. idpyoidc compares redirect URIs exactly (it has no RFC 8252 §7.3
any-port rule for loopback), so every client is registered with the loopback
callbacks of a few ports chosen at start and listed in the fixtures
(``loopback_ports``); the tests pass one of them to ``authflow login --port``.

Beside idpyoidc's endpoints, each provider has ``/resource``, a protected
resource for DPoP-bound tokens (idpyoidc's userinfo refuses every conforming
proof, see ``dpop_resource``), and ``/authorization-as-is``, the
authorization endpoint without the web layer's PAR fill-in (see
``authorization``). Test_idpyoidc.py lists what idpyoidc 5.0.0 cannot serve
and what this file adjusts after building the servers.

What the server saw is served as JSON at ``/interop/seen`` (the client
authentication method idpyoidc accepted at each endpoint, whether a DPoP
proof came with the request, the ``token_type`` it answered) — no token,
code or assertion is kept there.
"""

import argparse
import json
import os
import socket
import sys
import threading
import time
from urllib.parse import parse_qsl

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from cryptojwt.jwk.hmac import SYMKey  # noqa: E402
from cryptojwt.jwt import JWT  # noqa: E402
from cryptojwt.key_bundle import KeyBundle  # noqa: E402
from flask import Flask, Response, g, jsonify, redirect, request  # noqa: E402

from idpyoidc.message.oauth2 import ResponseMessage  # noqa: E402
from idpyoidc.message.oidc import AccessTokenRequest  # noqa: E402
from idpyoidc.server import Server  # noqa: E402
from idpyoidc.server.configure import OPConfiguration  # noqa: E402
from idpyoidc.server.exception import ClientAuthenticationError, InvalidClient, UnAuthorizedClient, UnknownClient  # noqa: E402
from idpyoidc.server.oauth2.add_on.pkce import CC_METHOD  # noqa: E402
from idpyoidc.server.oidc.token import Token  # noqa: E402
from idpyoidc.server.user_info import UserInfo  # noqa: E402
from pydpop.verifier import DPoPError, MemoryJtiStore, verify_proof  # noqa: E402

from interop_common import write_json_atomic  # noqa: E402

USER = "alice"
USERS = {
    USER: {
        "sub": USER,
        "name": "Alice Example",
        "given_name": "Alice",
        "family_name": "Example",
        "email": "alice@example.com",
        "email_verified": True,
    }
}

PUBLIC_CLIENT_ID = "authflow-idpy-public"
PKJWT_CLIENT_ID = "authflow-idpy-pkjwt"
SECRET_JWT_CLIENT_ID = "authflow-idpy-secretjwt"
SECRET_JWT_SECRET = "idpy-client-secret-jwt-shared-secret-0123456789"
SCOPES = ["openid", "profile", "email", "offline_access"]
LOOPBACK_PORTS = 16
ACCESS_TOKEN_LIFETIME = 3600
# Short enough that a test can wait for AuthFlow to refresh a DPoP-bound
# token (`authflow token --force` refuses DPoP profiles by design), long
# enough for one command: AuthFlow refreshes within half the lifetime.
DPOP_ACCESS_TOKEN_LIFETIME = 6

KEY_DEFS = [
    {"type": "RSA", "use": ["sig"]},
    {"type": "EC", "crv": "P-256", "use": ["sig"]},
]
CRYPT_CONFIG = {
    "kwargs": {
        "keys": {
            "key_defs": [
                {"type": "OCT", "use": ["enc"], "kid": "password"},
                {"type": "OCT", "use": ["enc"], "kid": "salt"},
            ]
        },
        "iterations": 1,
    }
}
JWT_AUTH = ["private_key_jwt", "client_secret_jwt"]
CLIENT_AUTHENTICATION_ERRORS = (ClientAuthenticationError, InvalidClient, UnAuthorizedClient, UnknownClient)


def free_ports(count):
    ports = set()
    while len(ports) < count:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("127.0.0.1", 0))
            ports.add(s.getsockname()[1])
    return sorted(ports)


def server_conf(issuer, dpop, directory):
    """The idpyoidc configuration of one provider; `directory` gets the file
    idpyoidc keeps its token keys in."""
    access_lifetime = DPOP_ACCESS_TOKEN_LIFETIME if dpop else ACCESS_TOKEN_LIFETIME
    token_authn = ["none", "public", *JWT_AUTH]
    conf = {
        "issuer": issuer,
        "httpc_params": {"verify": False, "timeout": 2},
        "keys": {"uri_path": "jwks", "key_defs": KEY_DEFS, "read_only": False},
        "preference": {
            "subject_types_supported": ["public"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "token_endpoint_auth_methods_supported": ["none", *JWT_AUTH],
            "token_endpoint_auth_signing_alg_values_supported": ["RS256", "PS256", "ES256", "EdDSA", "HS256"],
            "scopes_supported": SCOPES,
        },
        "token_handler_args": {
            "jwks_def": {
                # Without a path idpyoidc writes private/token_jwks.json
                # under the process's working directory.
                "private_path": os.path.join(directory, "dpop_token_jwks.json" if dpop else "token_jwks.json"),
                "read_only": False,
                "key_defs": [
                    {"type": "oct", "bytes": 24, "use": ["enc"], "kid": "code"},
                    {"type": "oct", "bytes": 24, "use": ["enc"], "kid": "refresh"},
                ],
            },
            "code": {"lifetime": 600, "kwargs": {"crypt_conf": CRYPT_CONFIG}},
            "token": {
                "class": "idpyoidc.server.token.jwt_token.JWTToken",
                "kwargs": {"lifetime": access_lifetime, "aud": [issuer]},
            },
            "refresh": {
                "class": "idpyoidc.server.token.jwt_token.JWTToken",
                "kwargs": {"lifetime": 86400, "aud": [issuer]},
            },
            "id_token": {"class": "idpyoidc.server.token.id_token.IDToken", "kwargs": {}},
        },
        "authz": {
            "class": "idpyoidc.server.authz.AuthzHandling",
            "kwargs": {
                "grant_config": {
                    "usage_rules": {
                        "authorization_code": {
                            "supports_minting": ["access_token", "refresh_token", "id_token"],
                            "max_usage": 1,
                        },
                        "access_token": {"expires_in": access_lifetime},
                        "refresh_token": {"supports_minting": ["access_token", "refresh_token", "id_token"]},
                    },
                    "expires_in": 43200,
                }
            },
        },
        "endpoint": {
            "provider_config": {
                "path": ".well-known/openid-configuration",
                "class": "idpyoidc.server.oidc.provider_config.ProviderConfiguration",
                "kwargs": {"client_authn_method": None},
            },
            "authorization": {
                "path": "authorization",
                "class": "idpyoidc.server.oidc.authorization.Authorization",
                "kwargs": {
                    "client_authn_method": None,
                    "response_types_supported": ["code"],
                    "response_modes_supported": ["query"],
                    "request_uri_parameter_supported": True,
                },
            },
            "pushed_authorization": {
                "path": "par",
                "class": "idpyoidc.server.oauth2.pushed_authorization.PushedAuthorization",
                "kwargs": {"client_authn_method": token_authn},
            },
            "token": {
                "path": "token",
                "class": "idpyoidc.server.oidc.token.Token",
                "kwargs": {"client_authn_method": token_authn},
            },
            "userinfo": {
                "path": "userinfo",
                "class": "idpyoidc.server.oidc.userinfo.UserInfo",
                "kwargs": {"client_authn_method": ["bearer_header", "dpop"] if dpop else ["bearer_header"]},
            },
            "token_revocation": {
                "path": "revoke",
                "class": "idpyoidc.server.oauth2.token_revocation.TokenRevocation",
                "kwargs": {"client_authn_method": token_authn},
            },
            "introspection": {
                "path": "introspection",
                "class": "idpyoidc.server.oauth2.introspection.Introspection",
                "kwargs": {"client_authn_method": JWT_AUTH},
            },
        },
        "add_on": {
            "pkce": {
                "function": "idpyoidc.server.oauth2.add_on.pkce.add_support",
                # S256 only: idpyoidc takes the methods as a name -> hash map.
                "kwargs": {"essential": True, "code_challenge_methods": {"S256": CC_METHOD["S256"]}},
            },
        },
        "authentication": {
            "anon": {
                "acr": "urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport",
                "class": "idpyoidc.server.user_authn.user.NoAuthn",
                "kwargs": {"user": USER},
            }
        },
        "userinfo": {"class": UserInfo, "kwargs": {"db": USERS}},
        "cookie_handler": {
            "class": "idpyoidc.server.cookie_handler.CookieHandler",
            "kwargs": {
                "keys": {
                    "key_defs": [
                        {"type": "OCT", "use": ["enc"], "kid": "enc"},
                        {"type": "OCT", "use": ["sig"], "kid": "sig"},
                    ],
                },
                "name": {"session": "idpy_op", "register": "idpy_op_rp", "session_management": "idpy_sman"},
            },
        },
        "session_params": {"encrypter": CRYPT_CONFIG},
        "template_dir": "templates",
    }
    if dpop:
        conf["add_on"]["dpop"] = {
            "function": "idpyoidc.server.oauth2.add_on.dpop.add_support",
            "kwargs": {
                "dpop_signing_alg_values_supported": ["ES256"],
                "dpop_endpoints": ["token", "userinfo"],
            },
        }
    return conf


def register_clients(server, issuer, redirect_uris, client_jwks):
    """Put the three test clients into the provider's client database; the
    private_key_jwt client's public keys and the client_secret_jwt client's
    secret go into its key jar under the client id, where idpyoidc looks for
    the keys of a client assertion."""
    context = server.context
    common = {
        "redirect_uris": [(uri, {}) for uri in redirect_uris],
        "response_types": ["code"],
        "grant_types": ["authorization_code", "refresh_token"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "allowed_scopes": SCOPES,
        "client_salt": "salted",
        # idpyoidc checks the method per client and endpoint; userinfo takes
        # the access token (bearer_header, or the DPoP add-on's scheme).
        # The DPoP add-on registers its method as "dpop" but tags what it
        # accepted "dpop_client_auth", and the per-client list is matched
        # against the tag.
        "userinfo_endpoint_client_authn_method": ["bearer_header", "dpop_client_auth"],
    }
    context.cdb[PUBLIC_CLIENT_ID] = {
        **common, "client_id": PUBLIC_CLIENT_ID, "token_endpoint_auth_method": "none",
        "client_authn_method": ["none", "public"],
    }
    context.cdb[PKJWT_CLIENT_ID] = {
        **common, "client_id": PKJWT_CLIENT_ID, "token_endpoint_auth_method": "private_key_jwt",
        "client_authn_method": ["private_key_jwt"], "jwks": client_jwks,
    }
    context.cdb[SECRET_JWT_CLIENT_ID] = {
        **common, "client_id": SECRET_JWT_CLIENT_ID, "token_endpoint_auth_method": "client_secret_jwt",
        "client_authn_method": ["client_secret_jwt"], "client_secret": SECRET_JWT_SECRET,
        "client_secret_expires_at": 0,
    }
    server.keyjar.import_jwks(client_jwks, PKJWT_CLIENT_ID)
    bundle = KeyBundle()
    bundle.append(SYMKey(key=SECRET_JWT_SECRET.encode("utf-8"), use="sig"))
    server.keyjar.add_kb(SECRET_JWT_CLIENT_ID, bundle)
    # idpyoidc checks a client assertion's aud against the endpoint's own
    # URL only; RFC 9126 §2 and RFC 7523 §3 want the issuer and the token
    # endpoint URL accepted too (AuthFlow sends the token endpoint URL to
    # every endpoint), so every endpoint that authenticates clients lists them.
    for name in ("token", "pushed_authorization", "token_revocation", "introspection"):
        endpoint = server.get_endpoint(name)
        for target in ("", "token"):
            if target not in endpoint.allowed_targets:
                endpoint.allowed_targets.append(target)


class Provider:
    """One idpyoidc Server and what it saw."""

    def __init__(self, issuer, dpop, base_path, redirect_uris, client_jwks):
        self.issuer = issuer
        self.dpop = dpop
        conf = OPConfiguration(conf=server_conf(issuer, dpop, base_path), base_path=base_path, domain="127.0.0.1",
                               port=0)
        self.server = Server(conf, cwd=base_path)
        register_clients(self.server, issuer, redirect_uris, client_jwks)
        context = self.server.context
        if dpop and "dpop_signing_alg_values_supported" not in context.provider_info:
            # The DPoP add-on writes this member into the metadata, but
            # Server.__init__ rebuilds the metadata after the add-ons ran.
            # idpyoidc's refresh-token grant only binds a refresh to a proof
            # when the member is there, so it is put back.
            context.provider_info["dpop_signing_alg_values_supported"] = context.add_on["dpop"]["algs_supported"]
        for endpoint in self.server.endpoint.values():
            endpoint.client_authentication = self.recording(endpoint.client_authentication)
        self.seen = []
        self.lock = threading.Lock()
        self.resource_jtis = MemoryJtiStore(ttl=120)

    @staticmethod
    def recording(authenticate):
        """Wraps an endpoint's client authentication to note, for the
        request being served, which method idpyoidc accepted."""
        def wrapper(*args, **kwargs):
            info = authenticate(*args, **kwargs)
            if isinstance(info, dict):
                g.client_authn = info.get("method")
            return info
        return wrapper

    def access_token_claims(self, token):
        """The claims of an access token this provider issued (its signature
        checked with the provider's own keys), or None."""
        try:
            return dict(JWT(key_jar=self.server.keyjar).unpack(token))
        except Exception:
            return None

    def record(self, entry):
        with self.lock:
            self.seen.append(entry)


def http_info():
    return {
        "headers": {k: v for k, v in request.headers.items(lower=True) if k not in ("cookie", "user-agent")},
        "method": request.method,
        "url": request.url,
        "cookie": [{"name": k, "value": v} for k, v in request.cookies.items()],
    }


def json_response(body, status):
    return Response(body if isinstance(body, str) else json.dumps(body), status=status,
                    content_type="application/json", headers={"Cache-Control": "no-store"})


def error_response(error, description, status=400):
    return json_response({"error": error, "error_description": description}, status)


def request_args():
    if request.method == "GET":
        return request.args.to_dict()
    return dict(parse_qsl(request.get_data(as_text=True), keep_blank_values=True))


def service(provider, name):
    """Run one idpyoidc endpoint the way its Flask example does, and record
    what it decided."""
    endpoint = provider.server.get_endpoint(name)
    info = http_info()
    entry = {"endpoint": name, "method": request.method, "dpop_proof": "dpop" in info["headers"]}
    try:
        parsed = endpoint.parse_request(request_args(), http_info=info)
    except CLIENT_AUTHENTICATION_ERRORS as err:
        # idpyoidc raises when no method authenticated the client; the
        # answer is RFC 6749 §5.2's.
        entry.update(outcome="refused", error=f"{type(err).__name__}: {err}")
        provider.record(entry)
        return error_response("invalid_client", "client authentication failed", 401)
    except Exception as err:  # idpyoidc raises on a refused proof
        entry.update(outcome="refused", error=f"{type(err).__name__}: {err}")
        provider.record(entry)
        return error_response("invalid_request" if name != "userinfo" else "invalid_token", str(err),
                              401 if name == "userinfo" else 400)
    if isinstance(parsed, ResponseMessage) and "error" in parsed:
        entry.update(outcome="refused", error=parsed.get("error"), error_description=parsed.get("error_description"))
        provider.record(entry)
        status = 401 if parsed["error"] in ("invalid_client", "unauthorized_client", "invalid_token") else 400
        return json_response(parsed.to_json(), status)
    entry["dpop_jkt"] = parsed.get("dpop_jkt")
    try:
        if isinstance(endpoint, Token):
            args = endpoint.process_request(AccessTokenRequest(**parsed.to_dict()), http_info=info)
        else:
            args = endpoint.process_request(parsed, http_info=info)
    except Exception as err:
        entry.update(outcome="error", error=f"{type(err).__name__}: {err}")
        provider.record(entry)
        return error_response("server_error", str(err), 500)
    if isinstance(args, ResponseMessage) and "error" in args:
        entry.update(outcome="refused", error=args.get("error"), error_description=args.get("error_description"))
        provider.record(entry)
        return json_response(args.to_json(), 400)
    response_args = args.get("response_args") if isinstance(args, dict) else None
    if name == "token" and isinstance(response_args, dict):
        entry["token_type"] = response_args.get("token_type")
        entry["grant_type"] = parsed.get("grant_type")
        claims = provider.access_token_claims(response_args.get("access_token", ""))
        entry["access_token_cnf"] = (claims or {}).get("cnf")
        entry["refresh_token_issued"] = "refresh_token" in response_args
    if parsed.get("client_id"):
        entry["client_id"] = parsed.get("client_id")
    entry["client_authn"] = g.get("client_authn")
    entry["outcome"] = "ok"
    provider.record(entry)
    if "http_response" in args:
        # The PAR endpoint's answer (idpyoidc leaves the status to the web
        # layer; RFC 9126 §2.2 wants 201).
        return json_response(args["http_response"], 201)
    done = endpoint.do_response(request=parsed, **args)
    placement = done.get("response_placement", endpoint.response_placement)
    if placement == "url":
        response = redirect(done["response"])
    else:
        response = Response(done["response"], status=done.get("response_code", 200))
    for key, value in done.get("http_headers", []):
        response.headers[key] = value
    return response


def authorization(provider, fill_in_pushed=True):
    """The authorization endpoint with the fixed, already signed-in user: parse
    the request (a pushed one is looked up by its request_uri), create the
    session for alice and answer with the redirect."""
    endpoint = provider.server.get_endpoint("authorization")
    info = http_info()
    args = request.args.to_dict()
    entry = {"endpoint": "authorization", "method": request.method,
             "pushed": "request_uri" in args, "parameters": sorted(args)}
    pushed = provider.server.context.par_db.get(args.get("request_uri", ""))
    if fill_in_pushed and pushed is not None and pushed.get("client_id") == args.get("client_id"):
        # RFC 9126 §4: the browser carries only client_id and request_uri.
        # idpyoidc verifies the front-channel message (response_type
        # required) before it looks the request_uri up, so it refuses that
        # (`/authorization-as-is` shows it). Its own tests send the pushed
        # parameters again beside the request_uri; the web layer does the
        # same here, and idpyoidc then replaces the request with the pushed
        # one it stored.
        args = {**pushed.to_dict(), **args}
        entry["filled_in_from_pushed_request"] = True
    try:
        parsed = endpoint.parse_request(args, http_info=info)
    except Exception as err:
        entry.update(outcome="refused", error=f"{type(err).__name__}: {err}")
        provider.record(entry)
        return error_response("invalid_request", str(err))
    if isinstance(parsed, ResponseMessage) and "error" in parsed:
        entry.update(outcome="refused", error=parsed.get("error"), error_description=parsed.get("error_description"))
        provider.record(entry)
        return json_response(parsed.to_json(), 400)
    entry["dpop_jkt"] = parsed.get("dpop_jkt")
    args = endpoint.process_request(parsed, http_info=info)
    if isinstance(args, ResponseMessage) and "error" in args:
        entry.update(outcome="refused", error=args.get("error"), error_description=args.get("error_description"))
        provider.record(entry)
        return json_response(args.to_json(), 400)
    entry["outcome"] = "ok"
    provider.record(entry)
    done = endpoint.do_response(request=parsed, **args)
    response = redirect(done["response"]) if done.get("response_placement", "url") == "url" else Response(done["response"])
    for key, value in done.get("http_headers", []):
        response.headers[key] = value
    return response


def dpop_resource(provider):
    """A protected resource of this provider that takes DPoP-bound access
    tokens (RFC 9449 §7), for what idpyoidc's userinfo cannot check: it
    compares `ath` with the hex SHA-256 of the token, where RFC 9449 §4.2
    wants base64url, so no conforming proof passes there.

    The proof is checked by pydpop (signature, typ, htm, htu, iat, jti replay,
    ath); the token by its signature with the provider's keys, its expiry
    and its `cnf.jkt`, which must be the proof key's thumbprint. A bearer
    token (no cnf) is answered with its claims and `"bound": false`."""
    entry = {"endpoint": "resource", "method": request.method, "dpop_proof": "DPoP" in request.headers}
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")

    def refuse(description, scheme_name="DPoP"):
        entry.update(outcome="refused", error=description)
        provider.record(entry)
        response = error_response("invalid_token", description, 401)
        response.headers["WWW-Authenticate"] = f'{scheme_name} error="invalid_token", error_description="{description}"'
        return response

    claims = provider.access_token_claims(token) if token else None
    if claims is None or claims.get("exp", 0) < time.time():
        return refuse("unknown or expired access token", "DPoP" if scheme.lower() == "dpop" else "Bearer")
    jkt = (claims.get("cnf") or {}).get("jkt")
    if jkt is None:
        if scheme.lower() != "bearer":
            return refuse("a bearer token must be sent as Bearer", "Bearer")
        entry.update(outcome="ok", bound=False)
        provider.record(entry)
        return jsonify({"sub": claims.get("sub"), "bound": False})
    if scheme.lower() != "dpop":
        return refuse("a DPoP-bound token must be sent with the DPoP scheme")
    proof = request.headers.get("DPoP")
    if not proof:
        return refuse("no DPoP proof")
    try:
        checked = verify_proof(proof=proof, htm=request.method, htu=request.url, access_token=token,
                               jti_store=provider.resource_jtis)
    except DPoPError as err:
        return refuse(f"DPoP proof refused: {err}")
    if checked["jwk_thumbprint"] != jkt:
        return refuse("the DPoP proof key is not the key the token is bound to")
    entry.update(outcome="ok", bound=True, jkt=jkt)
    provider.record(entry)
    return jsonify({"sub": claims.get("sub"), "bound": True, "jkt": jkt})


def make_app(providers):
    app = Flask(__name__)

    def register(prefix, provider):
        def view_for(name):
            def view():
                return service(provider, name)
            view.__name__ = f"{prefix or 'root'}_{name}"
            return view

        app.add_url_rule(f"{prefix}/.well-known/openid-configuration", view_func=view_for("provider_config"))
        app.add_url_rule(f"{prefix}/token", view_func=view_for("token"), methods=["POST"])
        app.add_url_rule(f"{prefix}/par", view_func=view_for("pushed_authorization"), methods=["POST"])
        app.add_url_rule(f"{prefix}/userinfo", view_func=view_for("userinfo"), methods=["GET", "POST"])
        app.add_url_rule(f"{prefix}/introspection", view_func=view_for("introspection"), methods=["POST"])
        app.add_url_rule(f"{prefix}/revoke", view_func=view_for("token_revocation"), methods=["POST"])

        def authorize():
            return authorization(provider)
        authorize.__name__ = f"{prefix or 'root'}_authorization"
        app.add_url_rule(f"{prefix}/authorization", view_func=authorize)

        def authorize_as_is():
            return authorization(provider, fill_in_pushed=False)
        authorize_as_is.__name__ = f"{prefix or 'root'}_authorization_as_is"
        app.add_url_rule(f"{prefix}/authorization-as-is", view_func=authorize_as_is)

        def resource():
            return dpop_resource(provider)
        resource.__name__ = f"{prefix or 'root'}_resource"
        app.add_url_rule(f"{prefix}/resource", view_func=resource, methods=["GET", "POST"])

        def jwks():
            return jsonify(provider.server.keyjar.export_jwks())
        jwks.__name__ = f"{prefix or 'root'}_jwks"
        app.add_url_rule(f"{prefix}/jwks", view_func=jwks)

        def seen():
            with provider.lock:
                return jsonify(list(provider.seen))
        seen.__name__ = f"{prefix or 'root'}_seen"
        app.add_url_rule(f"{prefix}/interop/seen", view_func=seen)

    for prefix, provider in providers.items():
        register(prefix, provider)
    return app


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--fixtures-out", required=True)
    args = parser.parse_args()

    os.makedirs(args.data_dir, exist_ok=True)
    from cryptojwt.jwk.ec import new_ec_key
    from cryptojwt.jwk.rsa import new_rsa_key

    # The private_key_jwt client's keys: the tests read the private halves
    # from the fixtures, the providers register the public ones.
    ec_key = new_ec_key(crv="P-256", kid="idpy-ec-1")
    rsa_key = new_rsa_key(key_size=2048, kid="idpy-rsa-1")
    client_jwks = {"keys": [ec_key.serialize(private=False), rsa_key.serialize(private=False)]}
    ports = free_ports(LOOPBACK_PORTS)
    redirect_uris = [f"http://127.0.0.1:{p}/callback" for p in ports]

    base = f"http://127.0.0.1:{args.port}"
    providers = {
        "": Provider(base, False, args.data_dir, redirect_uris, client_jwks),
        "/dpop": Provider(base + "/dpop", True, args.data_dir, redirect_uris, client_jwks),
    }
    app = make_app(providers)

    fixtures = {
        "pid": os.getpid(),
        "issuer": base,
        "token_endpoint": base + "/token",
        # The members every entry of the config has (Tests/AuthFlowInteropTests reads
        # them): no password (the user is signed in without one); the
        # confidential client is the client_secret_jwt one.
        "username": USER,
        "password": "",
        "confidential_client_id": SECRET_JWT_CLIENT_ID,
        "confidential_client_secret": SECRET_JWT_SECRET,
        "dpop_issuer": base + "/dpop",
        "public_client_id": PUBLIC_CLIENT_ID,
        "private_key_jwt_client_id": PKJWT_CLIENT_ID,
        "client_secret_jwt_client_id": SECRET_JWT_CLIENT_ID,
        "client_secret_jwt_secret": SECRET_JWT_SECRET,
        "client_private_jwks": {"keys": [ec_key.serialize(private=True), rsa_key.serialize(private=True)]},
        "loopback_ports": ports,
        "scopes": SCOPES,
    }
    write_json_atomic(args.fixtures_out, fixtures)
    app.run(host="127.0.0.1", port=args.port, threaded=True, use_reloader=False)


if __name__ == "__main__":
    main()
