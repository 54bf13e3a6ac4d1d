import Foundation

@testable import AuthFlow

/// Token endpoint responses (RFC 6749 §5.1): any bytes end in a token
/// response or `invalid_response`; and as the body of a refused request, in
/// the OAuth error it carries or `invalid_response`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTokenResponse(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = Data(fuzzBytes(data, size))
    for allowDPoP in [false, true] {
        do {
            let token = try TokenResponse(json: bytes, requestedScopes: ["openid", "profile"], allowDPoP: allowDPoP)
            fuzzCheck(!token.accessToken.isEmpty, "an empty access token was accepted")
            _ = token.description
        } catch let error as AuthFlowError {
            fuzzCheck(error.category == .invalidResponse || error.category == .oauthError, "unexpected error category \(error.category)")
        } catch {
            fuzzFailure("an error that is not an AuthFlowError")
        }
    }
    return 0
}
