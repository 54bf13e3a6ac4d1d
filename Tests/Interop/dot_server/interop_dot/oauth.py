"""oauthlib/DOT customisations: S256-only PKCE and profile claims."""

from oauthlib.openid import Server
from oauth2_provider.oauth2_validators import OAuth2Validator


def _restrict_to_s256(grant, seen):
    if grant is None or id(grant) in seen:
        return
    seen.add(id(grant))
    methods = getattr(grant, "_code_challenge_methods", None)
    if isinstance(methods, dict):
        # Instance attribute shadows oauthlib's class-level table
        # {"plain": ..., "S256": ...}: a request with code_challenge_method=plain
        # (or with no method, which RFC 7636 defaults to plain) is then refused with
        # invalid_request at the authorization endpoint, and a stored "plain" code
        # could never be redeemed at the token endpoint.
        grant._code_challenge_methods = {"S256": methods["S256"]}
    _restrict_to_s256(getattr(grant, "proxy_target", None), seen)


class S256OnlyServer(Server):
    """oauthlib's OpenID Connect server with the PKCE "plain" method removed."""

    def __init__(self, request_validator, *args, **kwargs):
        super().__init__(request_validator, *args, **kwargs)
        seen = set()
        for value in list(vars(self).values()):
            _restrict_to_s256(value, seen)
            # Dispatchers (code vs. openid code, etc.) hold the actual grants.
            for attr in ("default_grant", "oidc_grant"):
                _restrict_to_s256(getattr(value, attr, None), seen)
        grant_types = getattr(self, "grant_types", {}) or {}
        for value in grant_types.values():
            _restrict_to_s256(value, seen)
        for value in (getattr(self, "response_types", {}) or {}).values():
            _restrict_to_s256(value, seen)
            for attr in ("default_grant", "oidc_grant"):
                _restrict_to_s256(getattr(value, attr, None), seen)


class InteropValidator(OAuth2Validator):
    oidc_claim_scope = dict(OAuth2Validator.oidc_claim_scope)
    oidc_claim_scope.update({"preferred_username": "profile", "name": "profile", "email": "email"})

    def get_additional_claims(self, request):
        user = request.user
        return {
            "preferred_username": user.get_username(),
            "name": user.get_full_name() or user.get_username(),
            "email": user.email,
        }
