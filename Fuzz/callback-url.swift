import Foundation

@testable import AuthFlow

/// Authorization responses delivered to the redirect URI: any URL ends in a
/// grant or a typed error; a grant only with the right endpoint, the state
/// sent and a code.
let metadata: ProviderMetadata = {
    var metadata = ProviderMetadata(
        issuer: try! Issuer("https://idp.example"), authorizationEndpoint: URL(string: "https://idp.example/authorize")!,
        tokenEndpoint: URL(string: "https://idp.example/token")!)
    metadata.authorizationResponseIssParameterSupported = true
    return metadata
}()
let request = try! AuthorizationRequest(
    metadata: metadata, clientID: "app", redirectURI: URL(string: "http://127.0.0.1:8400/callback")!,
    scopes: ["openid"], options: AuthorizationOptions(), state: "st-1", nonce: "n-1")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCallbackURL(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let text = String(decoding: fuzzBytes(data, size), as: UTF8.self)
    for candidate in [text, "http://127.0.0.1:8400/callback?" + text] {
        guard let url = URL(string: candidate) else { continue }
        do {
            let grant = try request.validateCallback(url)
            fuzzCheck(!grant.code.isEmpty, "a grant without a code")
            fuzzCheck(request.matchesState("st-1"), "state check broken")
        } catch let error as AuthFlowError {
            let allowed: [AuthFlowError.Category] = [.invalidResponse, .stateMismatch, .issuerMismatch, .oauthError]
            fuzzCheck(allowed.contains(error.category), "unexpected error category \(error.category)")
        } catch {
            fuzzFailure("an error that is not an AuthFlowError")
        }
    }
    return 0
}
