@testable import AuthFlow
import Foundation

/// `WWW-Authenticate` challenges (RFC 6750 §3) read from any header value:
/// a Bearer challenge with an `error`, or nothing; and the token endpoint's
/// reading of a 401 with the header.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWWWAuthenticate(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let header = String(decoding: fuzzBytes(data, size), as: UTF8.self)
    if let challenge = BearerChallenge(header) {
        fuzzCheck(header.lowercased().hasPrefix("bearer"), "a challenge that is not Bearer was read")
        fuzzCheck(!challenge.error.isEmpty && header.contains(challenge.error), "an empty error, or one not in the header")
    }
    let response = HTTPTransportResponse(status: 401, headers: [("WWW-Authenticate", header)])
    do {
        _ = try TokenEndpoint.requireSuccess(response, what: "userinfo request")
        fuzzFailure("a 401 was let through")
    } catch let error as AuthFlowError {
        fuzzCheck(error.category == .oauthError || error.category == .invalidResponse, "unexpected error category \(error.category)")
    } catch {
        fuzzFailure("an error that is not an AuthFlowError")
    }
    return 0
}
