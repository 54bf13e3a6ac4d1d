#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowTestSupport
import AuthFlowLoopback
import AuthFlowProvider
import Foundation

/// The browser of the full-flow test: authorization URL → redirect → the loopback listener.
struct LoopbackBrowserAgent: AuthorizationUserAgent {
    let listener: LoopbackListener

    func authorize(_ request: AuthorizationRequest) async throws -> URL {
        try await withThrowingTaskGroup(of: URL.self) { group in
            group.addTask { [listener] in try await listener.waitForCallback(for: request, timeout: 10) }
            let browser = HeadlessBrowser()
            let location = try await browser.redirectLocation(of: request.url)
            for _ in 0..<100 {
                if try await browser.get(location).status == 200 { break }
                try await Task.sleep(nanoseconds: 5_000_000)
            }
            let callback = try await group.next()!
            group.cancelAll()
            return callback
        }
    }
}
#endif
