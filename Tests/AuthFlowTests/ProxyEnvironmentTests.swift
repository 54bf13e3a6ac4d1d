#if AsyncHTTPClient && os(Linux) // the AsyncHTTPClient package trait, on Linux
import AsyncHTTPClient
import Foundation
import Testing

@testable import AuthFlow

/// The proxies `AsyncHTTPClientTransport` takes from the environment (curl's
/// and Go's variables), and a request through a real proxy on 127.0.0.1.
@Suite struct ProxyEnvironmentTests {
    let https = url("https://id.example.com/token")
    let http = url("http://api.example.com/x")

    @Test func eachSchemeHasItsVariableAndTheLowerCaseNameWins() {
        let environment = ProxyEnvironment([
            "https_proxy": "http://lower.example:3128", "HTTPS_PROXY": "http://upper.example:3128", "HTTP_PROXY": "proxy.example:8080",
        ])
        #expect(environment.setting(for: https) == .proxy(.init(host: "lower.example", port: 3128)))
        #expect(environment.setting(for: http) == .proxy(.init(host: "proxy.example", port: 8080)))
        #expect(ProxyEnvironment([:]).setting(for: https) == nil)
        #expect(ProxyEnvironment(["http_proxy": "http://p.example"]).setting(for: https) == nil)
        #expect(ProxyEnvironment(["http_proxy": "http://p.example"]).setting(for: http) == .proxy(.init(host: "p.example", port: 80)))
    }

    @Test func credentialsArePercentDecoded() {
        let environment = ProxyEnvironment(["HTTPS_PROXY": "http://me%40corp:p%3Ass@proxy.example:3128/"])
        #expect(environment.setting(for: https) == .proxy(.init(host: "proxy.example", port: 3128, user: "me@corp", password: "p:ss")))
        // Once only: "%2541" is the password's literal "%41", not "A".
        let literal = ProxyEnvironment(["https_proxy": "http://me:p%2541ss@proxy.example:3128"])
        #expect(literal.setting(for: https) == .proxy(.init(host: "proxy.example", port: 3128, user: "me", password: "p%41ss")))
    }

    /// Address blocks in CIDR form, as curl (7.86 and later) and Go read them.
    @Test func noProxyAddressBlocksCoverTheirAddressesOnly() {
        let environment = ProxyEnvironment([
            "https_proxy": "proxy.example:3128", "http_proxy": "proxy.example:3128",
            "no_proxy": "10.0.0.0/8, 192.168.4.0/22, fd00::/8, 172.16.0.0/33, bad/8",
        ])
        for direct in ["https://10.1.2.3/x", "http://10.255.255.255/", "https://192.168.7.9/", "https://[fd12::1]/x"] {
            #expect(environment.setting(for: url(direct)) == nil, "\(direct)")
        }
        for proxied in [
            "https://11.0.0.1/x", "https://192.168.8.1/", "https://[fe80::1]/x", "https://172.16.0.1/", "https://10.example/x",
            "https://bad/x",
        ] {
            #expect(environment.setting(for: url(proxied)) != nil, "\(proxied)")
        }
        #expect(ProxyAddressBlock("10.0.0.0/8") == ProxyAddressBlock("10.9.9.9/8"))
        #expect(ProxyAddressBlock("0.0.0.0/0")?.contains("8.8.8.8") == true)
        #expect(ProxyAddressBlock("0.0.0.0/0")?.contains("::1") == false)
        #expect(ProxyAddressBlock("10.0.0.0/-1") == nil && ProxyAddressBlock("10.0.0.0/") == nil && ProxyAddressBlock("10.0.0.0") == nil)
    }

    @Test(arguments: [
        "socks5://proxy.example:1080", "https://proxy.example:443", "http://", "http://proxy.example:99999", "http://proxy.example/path",
    ])
    func aProxyThisTransportCannotUseFailsTheRequestsItServes(_ value: String) async {
        let environment = ProxyEnvironment(["HTTPS_PROXY": value])
        #expect(environment.setting(for: https) == .unusable(variable: "HTTPS_PROXY"))
        let transport = AsyncHTTPClientTransport { url in
            try AsyncHTTPClientTransport.route(
                url, in: environment, direct: AsyncHTTPClientTransport.client, proxied: AsyncHTTPClientTransport.proxied)
        }
        let error = await expectError(.configuration) {
            try await transport.send(HTTPTransportRequest(method: "GET", url: https, timeout: 5))
        }
        // The value is never repeated: it may hold a password.
        #expect(error?.message == "HTTPS_PROXY names a proxy this transport cannot use")
    }

    @Test func noProxyAndLoopbackHostsAreReachedDirectly() {
        let environment = ProxyEnvironment([
            "https_proxy": "proxy.example:3128", "http_proxy": "proxy.example:3128",
            "NO_PROXY": " internal.example, .corp.example:8443,[fd00::1], 10.0.0.7",
        ])
        for direct in [
            "https://internal.example/x", "https://sso.internal.example/x", "https://id.corp.example/x", "http://10.0.0.7/x",
            "https://[fd00::1]/x", "http://127.0.0.1:8080/cb", "http://localhost/cb", "http://[::1]:9/cb", "http://127.5.6.7/",
        ] {
            #expect(environment.setting(for: url(direct)) == nil, "\(direct)")
        }
        for proxied in ["https://notinternal.example/x", "https://corp.example.org/x", "http://10.0.0.70/x"] {
            #expect(environment.setting(for: url(proxied)) != nil, "\(proxied)")
        }
        let all = ProxyEnvironment(["https_proxy": "proxy.example:3128", "no_proxy": "*"])
        #expect(all.setting(for: https) == nil)
    }

    @Test func aRequestGoesThroughTheProxyWithItsBasicCredentials() async throws {
        // A proxy on 127.0.0.1 that records the tunnel asked for and refuses it.
        let seen = LockedValue<[LocalHTTPServer.Request]>([])
        let proxy = try LocalHTTPServer { request in
            seen.withLock { $0.append(request) }
            return LocalHTTPServer.Response(status: 403)
        }
        defer { proxy.stop() }
        let environment = ProxyEnvironment(["https_proxy": "http://me:s3cret@127.0.0.1:\(proxy.port)"])
        let client = AsyncHTTPClientTransport.makeClient(proxy: nil)
        let proxied = LockedValue<HTTPClient?>(nil)
        let transport = AsyncHTTPClientTransport { url in
            try AsyncHTTPClientTransport.route(url, in: environment, direct: client) { settings in
                proxied.withLock { made in
                    if let made { return made }
                    let new = AsyncHTTPClientTransport.makeClient(proxy: settings)
                    made = new
                    return new
                }
            }
        }
        let error = await expectError(.network) {
            try await transport.send(HTTPTransportRequest(method: "GET", url: https, timeout: 10))
        }
        try await client.shutdown()
        try await proxied.withLock { $0 }?.shutdown()
        #expect(error?.message == "the proxy refused the connection to id.example.com")
        let request = try #require(seen.withLock { $0.first })
        #expect(request.method == "CONNECT" && request.target == "id.example.com:443")
        #expect(request.header("Proxy-Authorization") == "Basic " + Data("me:s3cret".utf8).base64EncodedString())
        // The loopback redirect of a sign-in never goes through it.
        #expect(
            try AsyncHTTPClientTransport.route(url("http://127.0.0.1:1/cb"), in: environment, direct: client) { _ in
                Issue.record("a loopback URL was proxied")
                return client
            } === client)
    }
}
#endif
