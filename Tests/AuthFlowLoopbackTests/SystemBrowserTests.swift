import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow
@testable import AuthFlowLoopback

@Suite struct SystemBrowserTests {
    let link = URL(string: "https://idp.example/authorize?a=1&b=2;rm%20-rf%20~&c='x'")!

    @Test func percentSIsReplaced() {
        #expect(SystemBrowser.command(for: link, browser: "firefox --new-tab %s") == ["firefox", "--new-tab", link.absoluteString])
        #expect(SystemBrowser.command(for: link, browser: "browser --url=%s --x") == ["browser", "--url=\(link.absoluteString)", "--x"])
    }

    @Test func urlIsAppendedWithoutPercentS() {
        #expect(SystemBrowser.command(for: link, browser: "chromium --incognito") == ["chromium", "--incognito", link.absoluteString])
        #expect(SystemBrowser.command(for: link, browser: "  lynx  ") == ["lynx", link.absoluteString])
    }

    @Test func quotesAndEscapesAreHonoured() {
        #expect(
            SystemBrowser.command(for: link, browser: #""/opt/My Browser/bin" --profile 'Work Profile' a\ b"#)
                == ["/opt/My Browser/bin", "--profile", "Work Profile", "a b", link.absoluteString])
        #expect(SystemBrowser.command(for: link, browser: #"x "" ''"#) == ["x", "", "", link.absoluteString])
        #expect(SystemBrowser.command(for: link, browser: #"x 'a\b'"#) == ["x", #"a\b"#, link.absoluteString])
    }

    @Test func urlWithShellCharactersStaysOneArgument() {
        let command = SystemBrowser.command(for: link, browser: "open-it")
        #expect(command.count == 2)
        #expect(command.last == link.absoluteString)
        #expect(command.last?.contains("&") == true)
        #expect(command.last?.contains(";") == true)
    }

    @Test(arguments: [nil, "", "   "] as [String?])
    func noBrowserUsesThePlatformOpener(_ browser: String?) {
        #if os(macOS)
        #expect(SystemBrowser.command(for: link, browser: browser) == ["open", link.absoluteString])
        #else
        #expect(SystemBrowser.command(for: link, browser: browser) == ["xdg-open", link.absoluteString])
        #endif
    }

    /// `openQuietly` passes the URL as one argument and reports a non-zero
    /// exit; the opener's own output is discarded (the CLI test checks that
    /// nothing it prints reaches the terminal).
    @Test func openQuietlyReportsTheExitStatus() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authflow-opener-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let record = directory.appendingPathComponent("argument").path
        let status = LockedValue<Int32?>(nil)
        let script = #"echo "$1" > "\#(record)"; echo "$1" >&2; exit 3"#
        try SystemBrowser.openQuietly(link, browser: "sh -c '\(script)' opener") { code in status.withLock { $0 = code } }
        for _ in 0..<250 where status.withLock({ $0 }) == nil { try await Task.sleep(nanoseconds: 20_000_000) }
        #expect(status.withLock { $0 } == 3)
        #expect(try String(contentsOfFile: record, encoding: .utf8) == link.absoluteString + "\n")

        let success = LockedValue(false)
        try SystemBrowser.openQuietly(link, browser: "true") { _ in success.withLock { $0 = true } }
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(!success.withLock { $0 }, "a zero exit is not reported")
    }

    @Test func splitWords() {
        #expect(SystemBrowser.splitWords(#"a "b c" 'd e' f\ g"#) == ["a", "b c", "d e", "f g"])
        #expect(SystemBrowser.splitWords("") == [])
        #expect(SystemBrowser.splitWords(#"a"b"c"#) == ["abc"])
    }
}

@Suite struct LoopbackUserAgentTests {
    /// The `open` closure plays the browser: it follows the redirect later, on its own.
    @Test func authorizeReturnsTheCallbackURL() async throws {
        let listener = try await LoopbackListener.start()
        let request = try authorizationRequest(redirectURI: listener.redirectURI)
        let opened = LockedValue<URL?>(nil)
        let callback = URL(string: "\(listener.redirectURI.absoluteString)?code=abc&state=\(request.state)")!
        let agent = LoopbackUserAgent(listener: listener, timeout: 5) { url in
            opened.withLock { $0 = url }
            Task {
                // Retry until the listener accepts (it starts expecting the callback right after `open`).
                for _ in 0..<50 {
                    if let status = try? await get(callback).status, status == 200 { return }
                    try? await Task.sleep(nanoseconds: 20_000_000)
                }
            }
        }
        let received = try await agent.authorize(request)
        #expect(received == callback)
        #expect(opened.withLock { $0 } == request.url)
        #expect(try request.validateCallback(received).code == "abc")
        await listener.close()
    }

    /// A browser that answers at once (synchronously, inside `open`) must not be refused.
    @Test func authorizeWithABrowserThatRedirectsImmediately() async throws {
        let listener = try await LoopbackListener.start()
        let request = try authorizationRequest(redirectURI: listener.redirectURI)
        let callback = URL(string: "\(listener.redirectURI.absoluteString)?code=abc&state=\(request.state)")!
        let status = LockedValue<Int?>(nil)
        let agent = LoopbackUserAgent(listener: listener, timeout: 1) { _ in
            let code = blockingGet(callback)
            status.withLock { $0 = code }
        }
        let received = try await agent.authorize(request)
        #expect(received == callback)
        #expect(status.withLock { $0 } == 200)
        await listener.close()
    }

    @Test func otherRedirectURIIsConfiguration() async throws {
        let listener = try await LoopbackListener.start()
        let request = try authorizationRequest(redirectURI: URL(string: "http://127.0.0.1:1/callback")!)
        let agent = LoopbackUserAgent(listener: listener, timeout: 1) { _ in Issue.record("must not open") }
        await expectError(.configuration) { try await agent.authorize(request) }
        await listener.close()
    }

    @Test func openFailurePropagates() async throws {
        let listener = try await LoopbackListener.start()
        let request = try authorizationRequest(redirectURI: listener.redirectURI)
        let agent = LoopbackUserAgent(listener: listener, timeout: 1) { _ in throw AuthFlowError(.configuration, "no browser") }
        await expectError(.configuration) { try await agent.authorize(request) }
        await listener.close()
    }
}
