import Foundation

@testable import AuthFlow

/// Userinfo responses: the first byte picks JSON or a signed JWT
/// (`application/jwt`); any rest ends in claims with a `sub` or a typed
/// error. The JWT is parsed as the client does before its signature check.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzUserInfo(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let raw = fuzzBytes(data, size)
    let body = Array(raw.dropFirst())
    let claims: [String: JSONMemberValue]?
    if (raw.first ?? 0) & 1 == 0 {
        claims = JSONMemberValue.object(from: body)
    } else {
        let text = String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        claims = (try? CompactJWS(text))?.claims
    }
    guard let claims else { return 0 }
    do {
        let info = try OpenIDUserInfo(claims: claims)
        fuzzCheck(!info.subject.isEmpty && claims["sub"]?.stringValue == info.subject, "sub read wrongly")
        _ = (info.name, info.email, info.emailVerified, info.preferredUsername)
        let encoded = try JSONEncoder().encode(info)
        fuzzCheck(try JSONDecoder().decode(OpenIDUserInfo.self, from: encoded) == info, "userinfo does not survive Codable")
    } catch let error as AuthFlowError {
        fuzzCheck(error.category == .invalidResponse, "unexpected error category \(error.category)")
    } catch {
        fuzzFailure("an error that is not an AuthFlowError: \(type(of: error))")
    }
    return 0
}
