#if CLI
import AuthFlow
import Foundation
import Testing
@testable import authflow

/// Which kept token `authflow request URL` sends (`Request.resourceToken(serving:in:own:)`):
/// the most specific resource that serves the URL, by the credential helpers' path rule.
@Suite("request: the token for a URL")
struct RequestResourceTokenTests {
    static func token(_ url: String) throws -> ResourceToken {
        let response = try TokenResponse(json: Data(#"{"access_token":"t","token_type":"Bearer"}"#.utf8), requestedScopes: [])
        return ResourceToken(resource: try ResourceIdentifier(URL(string: url)!), token: response, grant: "refresh_token")
    }

    static func chosen(_ target: String, _ tokens: [ResourceToken], own: String? = nil) throws -> String? {
        try Request.resourceToken(
            serving: URL(string: target)!, in: tokens, own: try own.map { try ResourceIdentifier(URL(string: $0)!) }
        )?.resource.description
    }

    @Test("the most specific path wins; another path, a dot-dot escape or another origin gets none")
    func mostSpecific() throws {
        let tokens = [try Self.token("https://api.example.com"), try Self.token("https://api.example.com/billing")]
        #expect(try Self.chosen("https://api.example.com/billing/invoices?page=2", tokens) == "https://api.example.com/billing")
        #expect(try Self.chosen("https://api.example.com/mail", tokens) == "https://api.example.com")
        #expect(try Self.chosen("https://api.example.com/billing/../mail", tokens) == "https://api.example.com")
        #expect(try Self.chosen("https://api.example.com/billingx", tokens) == "https://api.example.com")
        #expect(try Self.chosen("https://other.example.com/billing", tokens) == nil)
        #expect(try Self.chosen("https://api.example.com:8443/billing", tokens) == nil)
    }

    @Test("a resource with a query serves only its own URL")
    func queryResource() throws {
        let tokens = [try Self.token("https://api.example.com/api?tenant=a")]
        #expect(try Self.chosen("https://api.example.com/api?tenant=a", tokens) == "https://api.example.com/api?tenant=a")
        #expect(try Self.chosen("https://api.example.com/api?tenant=b", tokens) == nil)
        #expect(try Self.chosen("https://api.example.com/api/x", tokens) == nil)
    }

    @Test("the profile's own resource takes part: more specific, its own token goes")
    func ownResource() throws {
        let tokens = [try Self.token("https://api.example.com")]
        #expect(try Self.chosen("https://api.example.com/mail/inbox", tokens, own: "https://api.example.com/mail") == nil)
        #expect(
            try Self.chosen("https://api.example.com/billing", tokens, own: "https://api.example.com/mail") == "https://api.example.com")
    }

    @Test("two resources as specific as each other serving one URL are an error, not a guess")
    func tie() throws {
        let tokens = [try Self.token("https://api.example.com/a?x=1"), try Self.token("https://api.example.com/a")]
        #expect(try Self.chosen("https://api.example.com/a/b", tokens) == "https://api.example.com/a")
        let own = try #require(try? ResourceIdentifier(URL(string: "https://api.example.com/a/")!))
        let error = #expect(throws: AuthFlowError.self) {
            try Request.resourceToken(serving: URL(string: "https://api.example.com/a/b")!, in: tokens, own: own)
        }
        #expect(error?.category == .configuration)
    }
}
#endif
