#if CLI // the CLI package trait
import AuthFlow
import AuthFlowLoopback
import AuthFlowProvider
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The browser of `authflow demo`: GETs the authorization URL without
/// following the redirect, then delivers the redirect's `Location` to the
/// loopback listener — exactly what a browser does, minus the window.
struct DemoBrowserAgent: AuthorizationUserAgent {
    let listener: LoopbackListener
    let browser: HeadlessBrowser

    func authorize(_ request: AuthorizationRequest) async throws -> URL {
        try await withThrowingTaskGroup(of: URL.self) { group in
            group.addTask { [listener] in try await listener.waitForCallback(for: request, timeout: 10) }
            let location = try await browser.redirectLocation(of: request.url)
            // The listener answers 400 until the waiting task has registered
            // the request; the browser then simply tries again.
            var status = 0
            for _ in 0..<100 {
                status = try await browser.get(location).status
                if status == 200 { break }
                try await Task.sleep(nanoseconds: 5_000_000)
            }
            guard status == 200 else {
                throw AuthFlowError(.invalidResponse, "the loopback listener refused the redirect (HTTP \(status))")
            }
            guard let callback = try await group.next() else { throw AuthFlowError(.cancelled, "no callback") }
            group.cancelAll()
            return callback
        }
    }
}
#endif
