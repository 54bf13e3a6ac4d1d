import AuthFlow
import AuthFlowLoopback
import AuthFlowTestSupport
import Foundation
import Testing

extension InteropSuites {
    /// The device authorization grant (RFC 8628) through the engine against
    /// Django OAuth Toolkit and Authlib, approved by headless Chromium.
    @Suite("Device authorization grant against real servers")
    struct DeviceFlowInteropTests {
        static let servers = ["dot", "authlib"]

        private func start(_ flow: InteropFlow) async throws -> (OAuthClient, PendingDeviceAuthorization) {
            let clientID = try #require(flow.server.deviceClientID)
            let client = try await flow.client(clientID: clientID)
            let endpoint =
                flow.server.devicePublishesEndpoint == true ? nil : flow.server.deviceAuthorizationEndpoint.flatMap(URL.init(string:))
            let pending = try await client.startDeviceAuthorization(scopes: ["openid", "profile"], endpoint: endpoint)
            return (client, pending)
        }

        @Test("approved in the browser: tokens, polls at the server's interval, device code never logged", arguments: servers)
        func approved(server name: String) async throws {
            let flow = try InteropFlow(name)
            let (client, pending) = try await start(flow)
            #expect(pending.response.interval == 1)
            let link = try #require(pending.verificationURIComplete)
            try SystemBrowser.open(link, browser: flow.config.browser)
            let polls = PollRecorder()
            let credentials = try await pending.credentials { polls.add($0) }

            #expect(credentials.issuer?.identifier == flow.server.issuer)
            #expect(credentials.clientID == client.clientID)
            #expect(credentials.token.tokenType == "Bearer")
            #expect(polls.all.last?.outcome == .granted)
            #expect(polls.all.allSatisfy { $0.interval >= .seconds(1) })
            if flow.server.deviceIssuesIDToken == true {
                let claims = try #require(credentials.idToken)
                #expect(claims.nonce == nil)
                #expect(claims.audience.contains(client.clientID))
            } else {
                #expect(credentials.idToken == nil)
            }
            let log = flow.log.text
            #expect(log.contains("device authorization poll"))
            for secret in [pending.response.deviceCode, credentials.accessToken, credentials.token.refreshToken ?? ""] where !secret.isEmpty
            {
                #expect(!log.contains(secret), "a secret reached the log")
            }
        }

        @Test("cancelled while waiting: the server sees no poll after the cancel")
        func cancellation() async throws {
            let flow = try InteropFlow("authlib")
            let pollsURL = try #require(flow.server.devicePollsURL)
            let (_, pending) = try await start(flow)
            let seen = PollRecorder()
            let task = Task { try await pending.credentials { seen.add($0) } }
            while seen.all.count < 2 { try await Task.sleep(for: .milliseconds(50)) }
            task.cancel()
            let result = await task.result
            if case .failure(let error as AuthFlowError) = result {
                #expect(error.category == .cancelled)
            } else {
                Issue.record("expected a cancelled error, got \(result)")
            }
            let atCancel = try await serverPolls(pollsURL, userCode: pending.userCode)
            try await Task.sleep(for: .seconds(2.5))
            let later = try await serverPolls(pollsURL, userCode: pending.userCode)
            #expect(later == atCancel, "polls kept coming after the cancel")
            #expect(atCancel >= 2)
        }

        private func serverPolls(_ url: String, userCode: String) async throws -> Int {
            var components = try #require(URLComponents(string: url))
            components.queryItems = [URLQueryItem(name: "user_code", value: userCode)]
            let response = try await URLSessionTransport().send(HTTPTransportRequest(method: "GET", url: try #require(components.url)))
            let object = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
            return (object["polls"] as? [Any])?.count ?? -1
        }
    }
}

/// Poll records from the engine's observer.
final class PollRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var polls: [DevicePoll] = []

    func add(_ poll: DevicePoll) { lock.withLock { polls.append(poll) } }
    var all: [DevicePoll] { lock.withLock { polls } }
}
