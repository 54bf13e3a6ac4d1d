#if Hummingbird // the Hummingbird package trait
/// The `WWW-Authenticate` values of a refusal (RFC 6750 §3, RFC 9449 §7.1,
/// RFC 9728 §5.1): a `Bearer` challenge unless the API takes DPoP-bound
/// tokens only, a `DPoP` challenge with `algs` when it takes them, each with
/// `resource_metadata`; the error goes in the challenge of the scheme the
/// request used.
struct AuthenticationChallenges: Sendable {
    let realm: String?
    let resourceMetadata: String
    let dpopAlgorithms: [String]
    let bearerAllowed: Bool
    let dpopAllowed: Bool

    func values(for failure: AccessFailure) -> [String] {
        var values: [String] = []
        if bearerAllowed {
            values.append(challenge("Bearer", failure: failure.scheme == .bearer || !dpopAllowed ? failure : nil, algorithms: nil))
        }
        if dpopAllowed {
            let algorithms = dpopAlgorithms.joined(separator: " ")
            values.append(challenge("DPoP", failure: failure.scheme == .dpop || !bearerAllowed ? failure : nil, algorithms: algorithms))
        }
        return values
    }

    private func challenge(_ scheme: String, failure: AccessFailure?, algorithms: String?) -> String {
        var parameters: [(String, String)] = []
        if let realm { parameters.append(("realm", realm)) }
        if let error = failure?.error {
            parameters.append(("error", error))
            if let description = failure?.description { parameters.append(("error_description", description)) }
            if let scope = failure?.scope { parameters.append(("scope", scope)) }
            if let authentication = failure?.authentication {
                if !authentication.acrValues.isEmpty { parameters.append(("acr_values", authentication.acrValues.joined(separator: " "))) }
                if let maxAge = authentication.maxAge { parameters.append(("max_age", String(maxAge))) }
            }
        }
        if let algorithms { parameters.append(("algs", algorithms)) }
        parameters.append(("resource_metadata", resourceMetadata))
        return scheme + " " + parameters.map { "\($0.0)=\"\(Self.quotable($0.1))\"" }.joined(separator: ", ")
    }

    /// A quoted-string's content (RFC 9110 §5.6.4) restricted as RFC 6750
    /// §3 asks: printable ASCII without `"` and `\`, which are replaced.
    static func quotable(_ text: String) -> String {
        String(
            text.unicodeScalars.map { scalar -> Character in
                guard scalar.isASCII, scalar.value >= 0x20, scalar.value != 0x7F, scalar != "\"", scalar != "\\" else { return "'" }
                return Character(scalar)
            })
    }
}
#endif
