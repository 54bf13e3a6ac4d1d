import AuthFlow
import Foundation
import Testing

/// `Issuer`: validated once, compared exactly, the multi-tenant template rule.
/// Every string here goes through `Issuer.init(_:)` (`as String`), not the
/// test support's literal conformance.
struct IssuerTests {
    func make(_ text: String) throws -> Issuer { try Issuer(text) }

    @Test(arguments: [
        "https://accounts.google.com", "https://YOUR_TENANT.auth0.com/", "https://idp.example/realms/x",
        "http://127.0.0.1:8080", "http://[::1]:9000/as", "http://localhost:3000",
        "https://login.microsoftonline.com/{tenantid}/v2.0",
    ])
    func validIssuersKeepTheirIdentifierExactly(_ text: String) throws {
        let issuer = try make(text)
        #expect(issuer.identifier == text && issuer.description == text)
        #expect(issuer.isTemplate == text.contains("{tenantid}"))
    }

    @Test(arguments: [
        ("id.example.com", "issuer is not an absolute URL"),
        ("/realms/x", "issuer is not an absolute URL"),
        ("https://", "issuer is not an absolute URL"),
        ("https://idp.example/?tenant=x", "issuer must not have a query or fragment"),
        ("https://idp.example/#x", "issuer must not have a query or fragment"),
        ("http://idp.example", "issuer must use https (http is allowed only for loopback hosts)"),
        ("ftp://idp.example", "issuer must use https (http is allowed only for loopback hosts)"),
        ("https://idp.example/{tenant}/v2.0", "issuer holds braces other than one {tenantid} placeholder in its path"),
        ("https://idp.example/{tenantid}/{tenantid}", "issuer holds braces other than one {tenantid} placeholder in its path"),
        ("https://idp.example/{tenantid", "issuer holds braces other than one {tenantid} placeholder in its path"),
    ])
    func invalidIssuersAreConfigurationErrors(_ text: String, _ message: String) {
        let error = #expect(throws: AuthFlowError.self) { try make(text) }
        #expect(error?.category == .configuration && error?.message == message)
    }

    @Test func anOverlongIssuerIsRefused() {
        let error = #expect(throws: AuthFlowError.self) { try make("https://idp.example/" + String(repeating: "a", count: 2100)) }
        #expect(error?.message == "issuer is not an absolute URL" && error?.remedy == .giveTheIssuerURL)
    }

    @Test func equalityIsExactNoNormalisation() throws {
        #expect(try make("https://idp.example") != make("https://idp.example/"))
        #expect(try make("https://IDP.example") != make("https://idp.example"))
        #expect(try make("https://idp.example:443") != make("https://idp.example"))
        #expect(try make("https://idp.example") == make("https://idp.example"))
        #expect(try make(URL(string: "https://idp.example/a")!.absoluteString) == Issuer(URL(string: "https://idp.example/a")!))
    }

    /// RFC 9207 §2.4 and OpenID Connect Core §3.1.3.7 compare issuers
    /// exactly; Swift's `==` would take the Kelvin sign (U+212A) for `K`.
    @Test func anIssuerIsComparedByteForByteNotByUnicodeEquivalence() throws {
        let realm = try make("https://id.example.com/realms/Kelvin")
        let lookalike = "https://id.example.com/realms/\u{212A}elvin"
        #expect(lookalike == realm.identifier) // what Swift's String comparison says
        #expect(!realm.admits(lookalike, tenants: nil))
        #expect(realm.admits("https://id.example.com/realms/Kelvin", tenants: nil))
        let template = try make("https://login.example/{tenantid}/Kv2")
        #expect(template.tenant(in: "https://login.example/t-1/Kv2") == "t-1")
        #expect(template.tenant(in: "https://login.example/t-1/\u{212A}v2") == nil)
        #expect(!template.admits("https://login.example/t-1/\u{212A}v2", tenants: .only(["t-1"])))
    }

    @Test func aTemplateIsInstantiatedForATenantIDOnly() throws {
        let template = try make("https://login.microsoftonline.com/{tenantid}/v2.0")
        let tenant = "9188040d-6c67-4c5b-b112-36a304b66dad"
        #expect(try template.instantiated(tid: tenant).identifier == "https://login.microsoftonline.com/\(tenant)/v2.0")
        for bad in ["", "..", "a/b", "a b", "évil", String(repeating: "a", count: 129)] {
            let error = #expect(throws: AuthFlowError.self) { try template.instantiated(tid: bad) }
            #expect(error?.category == .configuration && error?.remedy == .fixTheTenantList)
        }
        let plain = try make("https://idp.example")
        let error = #expect(throws: AuthFlowError.self) { try plain.instantiated(tid: tenant) }
        #expect(error?.message == "the issuer https://idp.example is not a multi-tenant template")
    }

    @Test func aTemplateAdmitsItsInstancesForAllowedTenantsOnly() throws {
        let template = try make("https://login.microsoftonline.com/{tenantid}/v2.0")
        let a = "https://login.microsoftonline.com/tenant-a/v2.0"
        #expect(template.tenant(in: a) == "tenant-a")
        #expect(template.tenant(in: "https://login.microsoftonline.com/a/b/v2.0") == nil)
        #expect(template.tenant(in: "https://login.microsoftonline.com//v2.0") == nil)
        #expect(template.tenant(in: "https://evil.example/tenant-a/v2.0") == nil)
        #expect(template.admits(a, tenants: .any))
        #expect(template.admits(a, tenants: .only(["tenant-a"])))
        #expect(!template.admits(a, tenants: .only(["tenant-b"])))
        #expect(!template.admits(a, tenants: nil))
        // A template admits itself only as written; a plain issuer only itself.
        #expect(template.admits(template.identifier, tenants: nil))
        let plain = try make("https://idp.example")
        #expect(plain.admits("https://idp.example", tenants: .any) && !plain.admits("https://idp.example/", tenants: .any))
        #expect(plain.tenant(in: "https://idp.example") == nil)
    }

    @Test func codableIsTheIdentifierStringAndDecodingValidates() throws {
        let issuer = try make("https://idp.example/realms/x")
        let data = try JSONEncoder().encode([issuer])
        #expect(String(decoding: data, as: UTF8.self) == #"["https:\/\/idp.example\/realms\/x"]"#)
        #expect(try JSONDecoder().decode([Issuer].self, from: data) == [issuer])
        let error = #expect(throws: AuthFlowError.self) {
            try JSONDecoder().decode([Issuer].self, from: Data(#"["http://idp.example"]"#.utf8))
        }
        #expect(error?.category == .configuration)
    }

    @Test func aMetadataDocumentWithAnInvalidIssuerIsAnInvalidResponse() {
        let document =
            #"{"issuer":"https://idp.example?x=1","authorization_endpoint":"https://idp.example/a","token_endpoint":"https://idp.example/t"}"#
        let error = #expect(throws: AuthFlowError.self) { try ProviderMetadata(json: Data(document.utf8)) }
        #expect(error?.category == .invalidResponse)
        #expect(
            error?.message == "provider metadata: issuer https://idp.example?x=1 is not usable: issuer must not have a query or fragment")
    }
}
