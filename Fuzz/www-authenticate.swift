import Foundation

@testable import AuthFlow

/// `WWW-Authenticate` (RFC 9110 §11.6.1) read from any field value by the
/// one challenge parser, and what the engine reads from it: a Bearer
/// challenge's `error`, the DPoP nonce retry, and the token endpoint's 401.
/// Oracles: every scheme and parameter name is a lowercased token, names are
/// unique within a challenge, writing the challenges out again (values
/// quoted and escaped) reads back the same challenges, and the bearer error
/// is the parsed one.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWWWAuthenticate(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let header = String(decoding: fuzzBytes(data, size), as: UTF8.self)
    let challenges = AuthenticationChallenge.parse(header)
    fuzzCheck(challenges.count <= header.utf8.count, "more challenges than bytes")
    for challenge in challenges {
        fuzzCheck(isLowercasedToken(challenge.scheme), "a scheme that is not a lowercased token")
        fuzzCheck(challenge.token68 == nil || challenge.parameters.isEmpty, "token68 and parameters together")
        fuzzCheck(Set(challenge.parameters.map(\.name)).count == challenge.parameters.count, "a repeated parameter name")
        fuzzCheck(challenge.parameters.allSatisfy { isLowercasedToken($0.name) }, "a parameter name that is not a lowercased token")
    }
    fuzzCheck(AuthenticationChallenge.parse(written(challenges)) == challenges, "the written challenges read back differently")
    // A bearer error is the first Bearer (else DPoP) challenge's non-empty `error`, as parsed (quoted-pairs unescaped).
    let chosen = challenges.first { $0.isScheme("Bearer") } ?? challenges.first { $0.isScheme("DPoP") }
    let expected = chosen?["error"].flatMap { $0.isEmpty ? nil : $0 }
    fuzzCheck(BearerChallenge(header)?.error == expected, "the bearer error is not the parsed challenge's")
    let response = HTTPTransportResponse(status: 401, headers: [("WWW-Authenticate", header), ("DPoP-Nonce", "n")])
    _ = DPoPBinding().noteNonce(in: response, from: URL(string: "https://rs.example/")!)
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

private func isLowercasedToken(_ text: String) -> Bool {
    !text.isEmpty && text == text.lowercased() && text.utf8.allSatisfy(ChallengeReader.isTokenCharacter)
}

/// The challenges as a field value: token68 as is, every parameter value quoted.
private func written(_ challenges: [AuthenticationChallenge]) -> String {
    challenges.map { challenge in
        if let token68 = challenge.token68 { return "\(challenge.scheme) \(token68)" }
        if challenge.parameters.isEmpty { return challenge.scheme }
        let parameters = challenge.parameters.map { name, value in "\(name)=\"\(quotedPairs(value))\"" }
        return "\(challenge.scheme) \(parameters.joined(separator: ", "))"
    }.joined(separator: ", ")
}

/// `value` with backslashes and quotes escaped as quoted-pairs, scalar by scalar: a
/// quote followed by a combining mark is one `Character`, which a
/// `Character`-based replacement would leave unescaped (the first finding
/// of the long run).
private func quotedPairs(_ value: String) -> String {
    var escaped = String.UnicodeScalarView()
    for scalar in value.unicodeScalars {
        if scalar == "\\" || scalar == "\"" { escaped.append("\\") }
        escaped.append(scalar)
    }
    return String(escaped)
}
