import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// Multi-tenant issuers (Microsoft Entra ID's `common`, `organizations` and
/// `consumers` authorities), the one opt-in exception to exact issuer matching.
@Suite struct MultiTenantTests {
    static let template = "https://login.example/{tenantid}/v2.0"
    static let common = "https://login.example/common/v2.0"
    static let tenantA = "9188040d-6c67-4c5b-b112-36a304b66dad"
    static let tenantB = "72f988bf-86f1-41af-91ab-2d7cd011db47"

    static func transport(documentIssuer: String, asked: String) -> ScriptedTransport {
        ScriptedTransport(routes: [
            "\(asked)/.well-known/openid-configuration": .json(
                """
                {"issuer":"\(documentIssuer)","authorization_endpoint":"https://login.example/common/oauth2/v2.0/authorize",\
                "token_endpoint":"https://login.example/common/oauth2/v2.0/token","jwks_uri":"https://login.example/common/discovery/v2.0/keys"}
                """)
        ])
    }

    // MARK: discovery

    @Test func templateWithoutTenantsIsRefusedWithTheRemedy() async throws {
        let error = await expectError(.issuerMismatch) {
            try await ProviderMetadata.discover(
                issuer: Issuer(Self.common), transport: Self.transport(documentIssuer: Self.template, asked: Self.common))
        }
        #expect(error?.message == "metadata names the multi-tenant issuer template \(Self.template) for \(Self.common)")
        #expect(error?.remedy == .chooseTenants)
        #expect(error?.recovery?.contains("OAuthClient(issuer:clientID:tenants:) or ProviderMetadata.issuerTenants") == true)
    }

    @Test(arguments: [IssuerTenants.any, .only([tenantA])])
    func templateWithTenantsIsAccepted(_ tenants: IssuerTenants) async throws {
        let metadata = try await ProviderMetadata.discover(
            issuer: Issuer(Self.common), tenants: tenants,
            transport: Self.transport(documentIssuer: Self.template, asked: Self.common))
        #expect(metadata.issuer?.identifier == Self.template)
        #expect(metadata.issuerTenants == tenants)
    }

    @Test func tenantsDoNotExcuseAnotherIssuer() async throws {
        // The template does not instantiate to the issuer asked for: still a mismatch.
        let asked = "https://other.example/common/v2.0"
        let error = await expectError(.issuerMismatch) {
            try await ProviderMetadata.discover(
                issuer: Issuer(asked), tenants: .any,
                transport: Self.transport(documentIssuer: Self.template, asked: asked))
        }
        #expect(error?.message == "metadata names issuer \(Self.template), expected \(asked)")
        #expect(error?.recovery == "Use the issuer \(Self.template) if that is the provider you mean.")
        #expect(error?.remedy == .useIssuer.with(Self.template))
        // A concrete issuer that differs is never accepted, tenants or not.
        let concrete = await expectError(.issuerMismatch) {
            try await ProviderMetadata.discover(
                issuer: Issuer(Self.common), tenants: .any,
                transport: Self.transport(documentIssuer: "https://login.example/\(Self.tenantA)/v2.0", asked: Self.common))
        }
        #expect(concrete?.message.contains("expected \(Self.common)") == true)
    }

    @Test func auth0DomainWithoutTrailingSlashGetsTheFix() async throws {
        let error = await expectError(.issuerMismatch) {
            try await ProviderMetadata.discover(
                issuer: Issuer("https://tenant.auth0.example"),
                transport: Self.transport(documentIssuer: "https://tenant.auth0.example/", asked: "https://tenant.auth0.example"))
        }
        #expect(
            error?.message
                == "metadata names issuer https://tenant.auth0.example/, expected https://tenant.auth0.example: "
                + "the provider's issuer ends with a slash (as Auth0's do)")
        #expect(error?.remedy == .useIssuer.with("https://tenant.auth0.example/"))
        #expect(error?.remedy?.value == "https://tenant.auth0.example/")
    }

    @Test func entraDomainNameIssuerGetsTheTenantIDIssuer() async throws {
        let asked = "https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0"
        let found = "https://login.microsoftonline.com/\(Self.tenantA)/v2.0"
        let error = await expectError(.issuerMismatch) {
            try await ProviderMetadata.discover(
                issuer: Issuer(asked),
                transport: ScriptedTransport(routes: [
                    "\(asked)/.well-known/openid-configuration": .json(DiscoveryTests.document(issuer: found))
                ]))
        }
        #expect(error?.message.hasSuffix(": Microsoft Entra ID names tenants by ID in issuers, not by domain name") == true)
        #expect(error?.remedy == .useIssuer.with(found))
    }

    @Test func clientRefusesTemplateMetadataWithoutTenants() throws {
        let error = expectError(.configuration) {
            try OAuthClient(
                metadata: metadata(issuer: Issuer(stringLiteral: Self.template)), clientID: "app", transport: ScriptedTransport.unused())
        }
        #expect(error?.remedy == .chooseTenants)
        var allowed = metadata(issuer: Issuer(stringLiteral: Self.template))
        allowed.issuerTenants = .any
        _ = try OAuthClient(metadata: allowed, clientID: "app", transport: ScriptedTransport.unused())
    }

    // MARK: ID tokens

    static func claims(iss: String, tid: String?) throws -> IDTokenClaims {
        try IDTokenClaims(claims: TestIDP.claims(["iss": .string(iss), "tid": tid.map(JSONMemberValue.string)]))
    }

    static func rules(_ tenants: IssuerTenants?) -> IDTokenRules {
        IDTokenRules(issuer: Issuer(stringLiteral: template), clientID: TestIDP.clientID, nonce: "N-1", tenants: tenants)
    }

    @Test func tokenIssuerIsTheTemplateWithItsOwnTid() throws {
        try Self.rules(.any).check(Self.claims(iss: "https://login.example/\(Self.tenantA)/v2.0", tid: Self.tenantA), now: TestIDP.now)
        try Self.rules(.only([Self.tenantB, Self.tenantA])).check(
            Self.claims(iss: "https://login.example/\(Self.tenantA)/v2.0", tid: Self.tenantA), now: TestIDP.now)
    }

    @Test func tokenWhoseIssDisagreesWithItsTidIsRefused() throws {
        let error = expectError(.idTokenInvalid, reason: .issuer) {
            try Self.rules(.any).check(Self.claims(iss: "https://login.example/\(Self.tenantB)/v2.0", tid: Self.tenantA), now: TestIDP.now)
        }
        #expect(
            error?.message
                == "the ID token's iss is https://login.example/\(Self.tenantB)/v2.0, expected https://login.example/\(Self.tenantA)/v2.0")
    }

    @Test func tokenNamingTheTemplateItselfIsRefused() throws {
        expectError(.idTokenInvalid, reason: .issuer) {
            try Self.rules(.any).check(Self.claims(iss: Self.template, tid: "{tenantid}"), now: TestIDP.now)
        }
        expectError(.idTokenInvalid, reason: .issuer) {
            try Self.rules(.any).check(Self.claims(iss: "https://login.example/a/b/v2.0", tid: "a/b"), now: TestIDP.now)
        }
    }

    @Test func tokenWithoutTidIsRefused() throws {
        let error = expectError(.idTokenInvalid, reason: .issuer) {
            try Self.rules(.any).check(Self.claims(iss: "https://login.example/\(Self.tenantA)/v2.0", tid: nil), now: TestIDP.now)
        }
        #expect(error?.message.contains("no usable tid") == true)
    }

    @Test func tenantOutsideTheListIsRefusedNamingTheTenant() throws {
        let error = expectError(.idTokenInvalid, reason: .issuer) {
            try Self.rules(.only([Self.tenantB])).check(
                Self.claims(iss: "https://login.example/\(Self.tenantA)/v2.0", tid: Self.tenantA), now: TestIDP.now)
        }
        #expect(error?.recovery == "Add \(Self.tenantA) to IssuerTenants.only if that organisation may sign in.")
        #expect(error?.remedy == .allowTenant.with(Self.tenantA))
    }

    @Test func templateWithoutTenantsRefusesEveryToken() throws {
        let error = expectError(.idTokenInvalid, reason: .issuer) {
            try Self.rules(nil).check(Self.claims(iss: "https://login.example/\(Self.tenantA)/v2.0", tid: Self.tenantA), now: TestIDP.now)
        }
        #expect(error?.remedy == .chooseTenants)
    }

    @Test func signedTokenVerifiesAgainstTheMetadataKeys() async throws {
        let idp = try TestIDP(keys: [SigningKey.ec256.jwk(kid: "k1")])
        let good = try jws(
            TestIDP.claims(["iss": .string("https://login.example/\(Self.tenantA)/v2.0"), "tid": .string(Self.tenantA)]),
            key: .ec256, alg: "ES256", kid: "k1")
        let claims = try await idp.verifier().verify(good, rules: Self.rules(.any), accessToken: nil, now: TestIDP.now)
        #expect(claims.subject == "user-1")
        // The tenant rule changes nothing else: a wrong signature still fails.
        let forged = try jws(
            TestIDP.claims(["iss": .string("https://login.example/\(Self.tenantA)/v2.0"), "tid": .string(Self.tenantA)]),
            key: .ec256b, alg: "ES256", kid: "k1")
        await expectError(.idTokenInvalid, reason: .signature) {
            try await idp.verifier().verify(forged, rules: Self.rules(.any), accessToken: nil, now: TestIDP.now)
        }
    }

    // MARK: callback iss (RFC 9207)

    @Test func callbackIssMayNameAnAllowedTenant() throws {
        var meta = metadata(issuer: Issuer(stringLiteral: Self.template))
        meta.issuerTenants = .only([Self.tenantA])
        let request = try AuthorizationRequest(
            metadata: meta, clientID: "app", redirectURI: url("http://127.0.0.1:9/cb"),
            scopes: ["openid"], options: .init(), state: "S-1")
        let grant = try request.validateCallback(
            url("http://127.0.0.1:9/cb?code=c&state=S-1&iss=https%3A%2F%2Flogin.example%2F\(Self.tenantA)%2Fv2.0"))
        #expect(grant.code == "c")
        expectError(.issuerMismatch) {
            try request.validateCallback(
                url("http://127.0.0.1:9/cb?code=c&state=S-1&iss=https%3A%2F%2Flogin.example%2F\(Self.tenantB)%2Fv2.0"))
        }
    }

    // MARK: --tenant syntax

    @Test func parsing() throws {
        #expect(try IssuerTenants(parsing: "any") == .any)
        #expect(try IssuerTenants(parsing: "a-1,b.2") == .only(["a-1", "b.2"]))
        #expect(try IssuerTenants(parsing: "a-1, b.2").description == "a-1,b.2")
        #expect(IssuerTenants.any.description == "any")
        for bad in ["", "a,,b", "a/b", "a b", "..", "{tenantid}"] {
            expectError(.configuration) { try IssuerTenants(parsing: bad) }
        }
    }
}
