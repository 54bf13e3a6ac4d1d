import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// Identifier normalisation, OpenID Connect Discovery 1.0 §2.1 (its examples in §2.1 and A.1–A.6).
@Suite struct WebFingerResourceTests {
    @Test(arguments: [
        ("joe@example.com", "acct:joe@example.com", "example.com"),
        (
            "acct:juliet%40capulet.example@shopping.example.com", "acct:juliet%40capulet.example@shopping.example.com",
            "shopping.example.com"
        ),
        ("example.com", "https://example.com", "example.com"),
        ("example.com:8080", "https://example.com:8080", "example.com:8080"),
        ("joe@example.com:8080", "https://joe@example.com:8080", "example.com:8080"),
        ("example.com/joe", "https://example.com/joe", "example.com"),
        ("https://example.com/joe#about", "https://example.com/joe", "example.com"),
        ("joe@Example.COM", "acct:joe@Example.COM", "example.com"),
        (" alice@127.0.0.1 ", "acct:alice@127.0.0.1", "127.0.0.1"),
        ("acct:alice@127.0.0.1:8080", "acct:alice@127.0.0.1:8080", "127.0.0.1:8080"),
        ("example.com:8080/alice", "https://example.com:8080/alice", "example.com:8080"),
        // Found by the webfinger fuzz target: a user part that starts with a digit is no port.
        ("2lic(e@Optional.com", "acct:2lic(e@Optional.com", "optional.com"),
        ("acct:2lic(e@Optional.com", "acct:2lic(e@Optional.com", "optional.com"),
        ("12/icu7@x#.", "acct:12/icu7@x", "x"),
        ("alice@[::1]", "acct:alice@[::1]", "[::1]"),
        ("alice@[::1]:8080", "https://alice@[::1]:8080", "[::1]:8080"),
        ("[::1]:8080/alice", "https://[::1]:8080/alice", "[::1]:8080"),
    ])
    func normalisation(_ input: String, _ resource: String, _ host: String) throws {
        let normalised = try WebFingerResource(input)
        #expect(normalised.resource == resource)
        #expect(normalised.host == host)
        #expect(try WebFingerResource(normalised.resource) == normalised, "a normalised resource normalises to itself")
    }

    @Test(arguments: [
        ("", "the account is empty or too long"),
        ("joe @example.com", "the account must not hold spaces or control characters"),
        // Found by the webfinger fuzz target: a combining mark would join the colon of "acct:".
        ("\u{031E}@x", "the account must be ASCII: percent-encode other characters, and give a host in its xn-- form"),
        ("jörg@example.com", "the account must be ASCII: percent-encode other characters, and give a host in its xn-- form"),
        ("mailto:joe@example.com", "the account has the scheme mailto:, not acct:, https: or http:"),
        ("acct:example.com", "the account URI acct:example.com has no user@host"),
        ("acct:@example.com", "the account URI acct:@example.com has no user@host"),
        ("joe@", "the account names no valid host ()"),
        // Found by the webfinger fuzz target: an empty IPv6 literal made no query URL.
        ("[]/]#", "the account names no valid host ([])"),
        ("alice@[]", "the account names no valid host ([])"),
        ("https:///path", "the account URL https:///path names no host"),
    ])
    func refused(_ input: String, _ message: String) {
        let error = expectError(.configuration) { try WebFingerResource(input) }
        #expect(error?.message == message)
        #expect(error?.remedy == .giveAnAccount)
    }

    /// Every byte outside the unreserved set is escaped, `+` included (a form decoder reads a bare `+` as a space).
    @Test func theQueryEscapesTheResourceAndTheRelation() throws {
        #expect(
            try WebFingerResource("alice+work@example.com").issuerQueryURL.absoluteString
                == "https://example.com/.well-known/webfinger?resource=acct%3Aalice%2Bwork%40example.com"
                + "&rel=http%3A%2F%2Fopenid.net%2Fspecs%2Fconnect%2F1.0%2Fissuer")
    }

    /// Plain http only for a provider on this machine; a URL identifier on http is still asked over https.
    @Test func onlyALoopbackHostIsAskedOverHTTP() throws {
        #expect(try WebFingerResource("acct:a@127.0.0.1:9000").issuerQueryURL.absoluteString.hasPrefix("http://127.0.0.1:9000/"))
        #expect(try WebFingerResource("a@localhost").issuerQueryURL.absoluteString.hasPrefix("http://localhost/"))
        #expect(try WebFingerResource("a@[::1]:9000").issuerQueryURL.absoluteString.hasPrefix("http://[::1]:9000/"))
        #expect(try WebFingerResource("http://example.com/a").issuerQueryURL.absoluteString.hasPrefix("https://example.com/"))
        #expect(try WebFingerResource("a@127.0.0.1.example.com").issuerQueryURL.absoluteString.hasPrefix("https://"))
    }
}

/// WebFinger against a real server on 127.0.0.1: the issuer link, then discovery as usual, and every hostile answer.
@Suite struct WebFingerDiscoveryTests {
    static func jrd(subject: String = "acct:alice@example.com", links: [(rel: String, href: String)]) -> String {
        let items = links.map { #"{"rel":"\#($0.rel)","href":"\#($0.href)"}"# }.joined(separator: ",")
        return #"{"subject":"\#(subject)","links":[\#(items)]}"#
    }

    /// A server that answers WebFinger with `answer` (given its own port) and serves metadata for itself.
    static func server(_ answer: @escaping @Sendable (_ port: Int, _ request: LocalHTTPServer.Request) -> LocalHTTPServer.Response)
        throws -> LocalHTTPServer
    {
        let port = Locked(0)
        let server = try LocalHTTPServer { request in
            if request.target.hasPrefix("/.well-known/webfinger") { return answer(port.current, request) }
            if request.target.hasSuffix("/.well-known/openid-configuration") {
                return .json(DiscoveryTests.document(issuer: "http://127.0.0.1:\(port.current)"))
            }
            return .init(status: 404)
        }
        port.withLock { $0 = server.port }
        return server
    }

    @Test func findsTheIssuerAndDiscoversIt() async throws {
        let server = try Self.server { port, _ in
            .json(
                Self.jrd(links: [
                    (rel: "http://webfinger.net/rel/profile-page", href: "https://example.com/alice"),
                    (rel: WebFingerResource.issuerRelation, href: "http://127.0.0.1:\(port)"),
                ]))
        }
        defer { server.stop() }
        let metadata = try await ProviderMetadata.discover(account: "acct:alice@127.0.0.1:\(server.port)", timeout: 5)
        #expect(metadata.issuer?.identifier == "http://127.0.0.1:\(server.port)")
        let asked = try #require(server.requests.first)
        #expect(asked.method == "GET")
        #expect(
            asked.target == "/.well-known/webfinger?resource=acct%3Aalice%40127.0.0.1%3A\(server.port)"
                + "&rel=http%3A%2F%2Fopenid.net%2Fspecs%2Fconnect%2F1.0%2Fissuer")
        #expect(asked.header("Accept") == "application/jrd+json, application/json")
        #expect(server.requests.map(\.target).last == "/.well-known/openid-configuration")
    }

    /// The issuer found is then discovered as usual: a document naming another issuer is refused.
    @Test func theIssuerFoundIsCheckedAsUsual() async throws {
        let server = try Self.server { port, _ in
            .json(Self.jrd(links: [(rel: WebFingerResource.issuerRelation, href: "http://127.0.0.1:\(port)/tenant")]))
        }
        defer { server.stop() }
        let error = await expectError(.issuerMismatch) {
            try await ProviderMetadata.discover(account: "acct:alice@127.0.0.1:\(server.port)", timeout: 5)
        }
        #expect(
            error?.message.hasPrefix(
                "metadata names issuer http://127.0.0.1:\(server.port), expected http://127.0.0.1:\(server.port)/tenant")
                == true)
    }

    @Test func anHTTPSRedirectIsFollowed() async throws {
        let server = try Self.server { port, request in
            if request.target.hasPrefix("/.well-known/webfinger?") {
                return .init(status: 302, headers: [("Location", "/.well-known/webfinger/moved")])
            }
            return .json(Self.jrd(links: [(rel: WebFingerResource.issuerRelation, href: "http://127.0.0.1:\(port)")]))
        }
        defer { server.stop() }
        let issuer = try await Issuer.discover(account: "acct:alice@127.0.0.1:\(server.port)", timeout: 5)
        #expect(issuer.identifier == "http://127.0.0.1:\(server.port)")
        #expect(server.requests.map(\.target).last == "/.well-known/webfinger/moved")
    }

    // MARK: Hostile answers

    @Test(arguments: ["http://id.example.com", "ftp://id.example.com"])
    func anIssuerOnAnotherSchemeIsRefused(_ href: String) async throws {
        let server = try Self.server { _, _ in
            .json(Self.jrd(links: [(rel: WebFingerResource.issuerRelation, href: href)]))
        }
        defer { server.stop() }
        let error = await expectError(.invalidResponse) {
            try await ProviderMetadata.discover(account: "acct:alice@127.0.0.1:\(server.port)", timeout: 5)
        }
        #expect(
            error?.message
                == "the WebFinger answer from 127.0.0.1:\(server.port) names the issuer \(href), which is not usable: "
                + "issuer must use https (http is allowed only for loopback hosts)")
        #expect(error?.remedy == .giveTheIssuerInstead)
        #expect(server.requests.count == 1, "nothing is asked of the refused issuer")
    }

    @Test(arguments: [
        #"{"subject":"acct:alice@example.com","links":[{"rel":"http://openid.net/specs/connect/1.0/issuer/x","href":"https://id.example.com"}]}"#,
        #"{"subject":"acct:alice@example.com","links":[{"rel":"HTTP://OPENID.NET/specs/connect/1.0/issuer","href":"https://id.example.com"}]}"#,
        #"{"subject":"acct:alice@example.com","links":[]}"#,
        #"{"subject":"acct:alice@example.com"}"#,
    ])
    func noIssuerLinkIsRefused(_ answer: String) async throws {
        let server = try Self.server { _, _ in .json(answer) }
        defer { server.stop() }
        let error = await expectError(.invalidResponse) {
            try await Issuer.discover(account: "acct:alice@127.0.0.1:\(server.port)", timeout: 5)
        }
        #expect(
            error?.message == "the WebFinger answer from 127.0.0.1:\(server.port) has no http://openid.net/specs/connect/1.0/issuer link")
        #expect(error?.remedy == .giveTheIssuerInstead)
    }

    @Test(arguments: [
        ("<html>not found</html>", "is not a JSON object"),
        (#"["https://id.example.com"]"#, "is not a JSON object"),
        (#"{"links":{"rel":"http://openid.net/specs/connect/1.0/issuer"}}"#, ": links must be an array"),
        (#"{"links":[{"rel":"http://openid.net/specs/connect/1.0/issuer","href":7}]}"#, ": href must be a string"),
        (#"{"links":[{"rel":"http://openid.net/specs/connect/1.0/issuer"}]}"#, ": href is missing"),
    ])
    func malformedAnswersAreRefused(_ answer: String, _ ending: String) async throws {
        let server = try Self.server { _, _ in .json(answer) }
        defer { server.stop() }
        let error = await expectError(.invalidResponse) {
            try await Issuer.discover(account: "acct:alice@127.0.0.1:\(server.port)", timeout: 5)
        }
        #expect(error?.message == "the WebFinger answer from 127.0.0.1:\(server.port)\(ending.hasPrefix(":") ? "" : " ")\(ending)")
    }

    @Test func aRedirectToPlainHTTPIsRefused() async throws {
        let server = try Self.server { _, _ in
            .init(status: 307, headers: [("Location", "http://id.example.com/.well-known/webfinger?resource=x")])
        }
        defer { server.stop() }
        let error = await expectError(.invalidResponse) {
            try await Issuer.discover(account: "acct:alice@127.0.0.1:\(server.port)", timeout: 5)
        }
        #expect(
            error?.message
                == "the WebFinger redirect from 127.0.0.1:\(server.port) must use https (http is allowed only for loopback hosts): "
                + "http://id.example.com/.well-known/webfinger")
        #expect(server.requests.count == 1)
    }

    @Test func endlessRedirectsAreRefused() async throws {
        let server = try Self.server { _, _ in .init(status: 301, headers: [("Location", "/.well-known/webfinger?again")]) }
        defer { server.stop() }
        let error = await expectError(.invalidResponse) {
            try await Issuer.discover(account: "acct:alice@127.0.0.1:\(server.port)", timeout: 5)
        }
        #expect(error?.message == "the WebFinger answer from 127.0.0.1:\(server.port) redirects more than 3 times")
        #expect(server.requests.count == 4)
    }

    @Test func anUnknownAccountSaysToGiveTheIssuer() async throws {
        let server = try Self.server { _, _ in .init(status: 404) }
        defer { server.stop() }
        let error = await expectError(.invalidResponse) {
            try await Issuer.discover(account: "acct:nobody@127.0.0.1:\(server.port)", timeout: 5)
        }
        #expect(error?.message == "no WebFinger answer for acct:nobody@127.0.0.1:\(server.port) (HTTP 404)")
        #expect(error?.remedy == .giveTheIssuerInstead)
    }

    /// The answer is bounded like a discovery document: an endless body is cut off at 1 MiB.
    @Test func aHugeAnswerIsCutOff() async throws {
        let server = try FaultServer { _ in .endless }
        defer { server.stop() }
        let error = await expectError(.invalidResponse) {
            try await Issuer.discover(account: "acct:alice@127.0.0.1:\(server.port)", timeout: 30)
        }
        #expect(error?.message == "the WebFinger answer from http://127.0.0.1:\(server.port)/.well-known/webfinger is larger than 1 MiB")
    }

    /// A server that never answers ends in the timeout.
    @Test func aSlowAnswerEndsInTheTimeout() async throws {
        let server = try FaultServer { _ in .stallBeforeHeaders }
        defer { server.stop() }
        let error = await expectError(.timeout) {
            try await Issuer.discover(account: "acct:alice@127.0.0.1:\(server.port)", timeout: 1)
        }
        #expect(
            error?.message == "the WebFinger answer from http://127.0.0.1:\(server.port)/.well-known/webfinger did not arrive within 1 s")
    }
}
