// expect(iOS): non-Sendable type
// A user agent (Sendable) holding mutable class state.
import AuthFlow
import Foundation

final class Counter { var count = 0 }

struct CountingAgent: AuthorizationUserAgent {
    let counter = Counter()
    func authorize(_ request: AuthorizationRequest) async throws -> URL { request.redirectURI }
}
