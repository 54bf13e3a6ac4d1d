import Foundation

@testable import AuthFlow

/// Error bodies (RFC 6749 §5.2) at any status: a refused response always ends
/// in `oauth_error` or `invalid_response`, never echoes a secret of the
/// request, and a 2xx passes through unchanged.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzErrorBody(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let raw = fuzzBytes(data, size)
    let status = raw.first.map { [200, 201, 302, 307, 400, 401, 403, 429, 500, 503][Int($0) % 10] } ?? 400
    let body = Data(raw.dropFirst())
    let secret = "s3cr3t-refresh-token"
    let response = HTTPTransportResponse(status: status, headers: [("WWW-Authenticate", "Basic realm=\"x\"")], body: body)
    _ = TokenEndpoint.oauthError(in: body)
    do {
        let passed = try TokenEndpoint.requireSuccess(response, what: "token request", secrets: [secret])
        fuzzCheck((200..<300).contains(status) && passed.body == body, "a refused status was let through")
    } catch let error as AuthFlowError {
        fuzzCheck(!(200..<300).contains(status), "a 2xx was refused")
        fuzzCheck(error.category == .oauthError || error.category == .invalidResponse, "unexpected error category \(error.category)")
        let shown = "\(error) \(error.localizedDescription) \(error.oauth?.errorDescription ?? "") \(error.oauth?.errorURI ?? "")"
        fuzzCheck(!shown.contains(secret), "a secret reached the error")
    } catch {
        fuzzFailure("an error that is not an AuthFlowError")
    }
    return 0
}
