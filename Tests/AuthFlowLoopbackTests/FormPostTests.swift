import AuthFlow
import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlowLoopback

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Sends `request` on a fresh TCP connection to 127.0.0.1:`port` and reads
/// the answer until the server closes (5 s receive timeout); returns the
/// status code (nil when none came), the whole answer, and whether the
/// server closed the connection (false: the read timed out).
func rawHTTP(port: Int, _ request: [UInt8]) -> (status: Int?, text: String, closed: Bool) {
    guard let fd = connectedLoopbackSocket(port: port) else { return (nil, "", false) }
    defer { close(fd) }
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var sent = 0
    while sent < request.count {
        #if canImport(Darwin)
        let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        #else
        let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        #endif
        if n <= 0 { break } // the server may answer and close before reading everything
        sent += n
    }
    var answer: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    var closed = false
    for _ in 0..<1000 {
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) { closed = true }
        if n <= 0 { break }
        answer += chunk[0..<n]
    }
    let text = String(decoding: answer, as: UTF8.self)
    let status = text.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) }
    return (status, text, closed)
}

func post(
    port: Int, path: String = "/callback", contentType: String? = "application/x-www-form-urlencoded",
    body: String
) -> (status: Int?, text: String, closed: Bool) {
    var head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: \(body.utf8.count)\r\n"
    if let contentType { head += "Content-Type: \(contentType)\r\n" }
    return rawHTTP(port: port, Array((head + "\r\n" + body).utf8))
}

@Suite struct FormPostTests {
    static func formPostRequest(_ listener: LoopbackListener, mode: AuthorizationOptions? = nil) throws -> AuthorizationRequest {
        let metadata = ProviderMetadata(
            issuer: "https://idp.example", authorizationEndpoint: URL(string: "https://idp.example/authorize")!,
            tokenEndpoint: URL(string: "https://idp.example/token")!)
        let client = try OAuthClient(metadata: metadata, clientID: "app")
        return try client.authorizationRequest(
            redirectURI: listener.redirectURI, scopes: ["openid", "name", "email"],
            options: mode ?? AuthorizationOptions(responseMode: .formPost))
    }

    static let appleUser = #"{"name":{"firstName":"Ada","lastName":"Lovelace"},"email":"ada@example.com"}"#

    static func form(_ pairs: [(String, String)]) -> String { FormEncoding.encode(pairs) }

    @Test func requestCarriesTheResponseMode() throws {
        let metadata = ProviderMetadata(
            authorizationEndpoint: URL(string: "https://idp.example/authorize")!,
            tokenEndpoint: URL(string: "https://idp.example/token")!)
        let client = try OAuthClient(metadata: metadata, clientID: "app")
        let redirect = URL(string: "http://127.0.0.1:9/callback")!
        let viaOption = try client.authorizationRequest(redirectURI: redirect, scopes: [], options: .init(responseMode: .formPost))
        #expect(viaOption.url.query?.contains("response_mode=form_post") == true)
        #expect(viaOption.expectsFormPost)
        let viaParameter = try client.authorizationRequest(
            redirectURI: redirect, scopes: [],
            options: .init(additionalParameters: [.init("response_mode", "form_post")]))
        #expect(viaParameter.expectsFormPost)
        #expect(try !client.authorizationRequest(redirectURI: redirect, scopes: []).expectsFormPost)
        // Both ways at once is a parameter given twice.
        #expect(throws: AuthFlowError.self) {
            try client.authorizationRequest(
                redirectURI: redirect, scopes: [],
                options: .init(responseMode: .formPost, additionalParameters: [.init("response_mode", "query")]))
        }
    }

    @Test func formPostCallbackIsAcceptedOnceAndExtraMembersReachTheCaller() async throws {
        let listener = try await LoopbackListener.start()
        let request = try Self.formPostRequest(listener)
        listener.prepare(for: request)
        let waiting = Task { try await listener.waitForCallback(for: request, timeout: 10) }

        let wrong = post(port: listener.port, body: Self.form([("code", "evil"), ("state", "wrong")]))
        #expect(wrong.status == 400)
        let body = Self.form([("state", request.state), ("code", "c0de+1"), ("user", Self.appleUser)])
        let right = post(port: listener.port, contentType: "application/x-www-form-urlencoded; charset=utf-8", body: body)
        #expect(right.status == 200)
        // The page echoes nothing it was sent.
        for secret in [request.state, "c0de", "Lovelace"] { #expect(!right.text.contains(secret)) }

        let grant = try request.validateCallback(try await waiting.value)
        #expect(grant.code == "c0de+1")
        #expect(grant.responseParameters == [.init("user", Self.appleUser)])

        // Single use: the same POST again is refused.
        #expect(post(port: listener.port, body: body).status == 400)
        await listener.close()
    }

    @Test func formPostIssIsCheckedLikeAQueryIss() async throws {
        let listener = try await LoopbackListener.start()
        let request = try Self.formPostRequest(listener)
        listener.prepare(for: request)
        let waiting = Task { try await listener.waitForCallback(for: request, timeout: 10) }
        let body = Self.form([("code", "c"), ("state", request.state), ("iss", "https://evil.example")])
        #expect(post(port: listener.port, body: body).status == 200)
        let callback = try await waiting.value
        #expect(throws: AuthFlowError(.issuerMismatch, "callback comes from issuer https://evil.example, expected https://idp.example")) {
            try request.validateCallback(callback)
        }
        await listener.close()
    }

    @Test func errorResponseByFormPostIsAnOAuthError() async throws {
        let listener = try await LoopbackListener.start()
        let request = try Self.formPostRequest(listener)
        listener.prepare(for: request)
        let waiting = Task { try await listener.waitForCallback(for: request, timeout: 10) }
        #expect(
            post(port: listener.port, body: Self.form([("error", "user_cancelled_authorize"), ("state", request.state)])).status == 200)
        let callback = try await waiting.value
        do {
            _ = try request.validateCallback(callback)
            Issue.record("an error response was accepted")
        } catch let error as AuthFlowError {
            #expect(error.category == .oauthError)
            #expect(error.oauth?.error == "user_cancelled_authorize")
        }
        await listener.close()
    }

    @Test func postIsRefusedWhenTheRequestDidNotAskForFormPost() async throws {
        let listener = try await LoopbackListener.start()
        let request = try Self.formPostRequest(listener, mode: AuthorizationOptions())
        listener.prepare(for: request)
        let body = Self.form([("code", "c"), ("state", request.state)])
        #expect(post(port: listener.port, body: body).status == 404)
        await expectError(.timeout) { try await listener.waitForCallback(for: request, timeout: 0.2) }
        await listener.close()
    }

    @Test func formPostNeedsAFormBodyOnTheCallbackPath() async throws {
        let listener = try await LoopbackListener.start()
        let request = try Self.formPostRequest(listener)
        listener.prepare(for: request)
        let body = Self.form([("code", "c"), ("state", request.state)])
        #expect(post(port: listener.port, contentType: "application/json", body: body).status == 415)
        #expect(post(port: listener.port, contentType: nil, body: body).status == 415)
        #expect(post(port: listener.port, path: "/other", body: body).status == 404)
        #expect(post(port: listener.port, path: "/callback?x=1", body: body).status == 404)
        #expect(post(port: listener.port, body: "state=%zz&code=c").status == 400)
        await expectError(.timeout) { try await listener.waitForCallback(for: request, timeout: 0.2) }
        await listener.close()
    }

    @Test func oversizedBodyIsRefusedWithoutReadingIt() async throws {
        let listener = try await LoopbackListener.start()
        let request = try Self.formPostRequest(listener)
        listener.prepare(for: request)
        let big = Self.form([("state", request.state), ("code", "c"), ("user", String(repeating: "x", count: 70 * 1024))])
        #expect(post(port: listener.port, body: big).status == 413)
        // Announced small, sent large (chunked): refused too.
        let chunk = String(repeating: "y", count: 65 * 1024)
        let chunked =
            "POST /callback HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n\(String(chunk.utf8.count, radix: 16))\r\n\(chunk)\r\n0\r\n\r\n"
        #expect(rawHTTP(port: listener.port, Array(chunked.utf8)).status == 413)
        await expectError(.timeout) { try await listener.waitForCallback(for: request, timeout: 0.2) }
        await listener.close()
    }

    @Test func longTargetsAndHeadersAreRefused() async throws {
        let listener = try await LoopbackListener.start()
        let request = try Self.formPostRequest(listener, mode: AuthorizationOptions())
        listener.prepare(for: request)
        let longQuery = "GET /callback?state=\(request.state)&code=\(String(repeating: "a", count: 9000)) HTTP/1.1\r\nHost: x\r\n\r\n"
        let long = rawHTTP(port: listener.port, Array(longQuery.utf8))
        #expect(long.status == 414 && long.closed)
        let bigHeader =
            "GET /callback?state=\(request.state)&code=c HTTP/1.1\r\nHost: x\r\nX-Pad: \(String(repeating: "p", count: 20 * 1024))\r\n\r\n"
        let refused = rawHTTP(port: listener.port, Array(bigHeader.utf8))
        #expect(refused.status == 400)
        #expect(refused.closed, "the connection was left open")
        let manyHeaders =
            "GET /callback?state=\(request.state)&code=c HTTP/1.1\r\nHost: x\r\n"
            + (0..<200).map { "X-\($0): v\r\n" }.joined() + "\r\n"
        let many = rawHTTP(port: listener.port, Array(manyHeaders.utf8))
        #expect(many.status == 400)
        #expect(many.closed, "the connection was left open")
        // None of them was delivered; a proper callback still is.
        let waiting = Task { try await listener.waitForCallback(for: request, timeout: 10) }
        let good = "GET /callback?state=\(request.state)&code=c HTTP/1.1\r\nHost: x\r\n\r\n"
        #expect(rawHTTP(port: listener.port, Array(good.utf8)).status == 200)
        #expect(try request.validateCallback(try await waiting.value).code == "c")
        await listener.close()
    }
}
