/// The payload members that ``IDTokenClaims`` types, as read and not yet
/// type-checked: filled from a parsed dictionary, or straight from the
/// payload's bytes by the verifier's scan (which skips every other claim).
struct IDTokenClaimValues: Sendable {
    /// A claim ``IDTokenClaims`` has a property for.
    enum Claim: CaseIterable {
        case iss, sub, aud, exp, iat, authTime, nonce, azp, atHash, acr, amr, name, email, preferredUsername

        /// The claim's JSON member name.
        var name: String {
            switch self {
            case .iss: "iss"
            case .sub: "sub"
            case .aud: "aud"
            case .exp: "exp"
            case .iat: "iat"
            case .authTime: "auth_time"
            case .nonce: "nonce"
            case .azp: "azp"
            case .atHash: "at_hash"
            case .acr: "acr"
            case .amr: "amr"
            case .name: "name"
            case .email: "email"
            case .preferredUsername: "preferred_username"
            }
        }

        /// The claim named by `bytes` (the exact member name), if it is one of these.
        init?(_ bytes: UnsafeBufferPointer<UInt8>) {
            func equals(_ literal: StaticString) -> Bool { bytes.equals(literal) }
            switch bytes.count {
            case 3:
                if equals("iss") { self = .iss } else if equals("sub") { self = .sub } else if equals("aud") { self = .aud }
                else if equals("exp") { self = .exp } else if equals("iat") { self = .iat } else if equals("azp") { self = .azp }
                else if equals("acr") { self = .acr } else if equals("amr") { self = .amr } else { return nil }
            case 4: if equals("name") { self = .name } else { return nil }
            case 5:
                if equals("nonce") { self = .nonce } else if equals("email") { self = .email } else { return nil }
            case 7: if equals("at_hash") { self = .atHash } else { return nil }
            case 9: if equals("auth_time") { self = .authTime } else { return nil }
            case 18: if equals("preferred_username") { self = .preferredUsername } else { return nil }
            default: return nil
            }
        }
    }

    private var iss, sub, aud, exp, iat, authTime, nonce, azp, atHash, acr, amr, name, email, preferredUsername: JSONValue?

    /// No claims.
    init() {}

    /// The typed claims of a parsed payload.
    init(_ claims: [String: JSONValue]) {
        for claim in Claim.allCases { self[claim] = claims[claim.name] }
    }

    /// The value read for `claim`, nil when the payload lacks it.
    subscript(claim: Claim) -> JSONValue? {
        get {
            switch claim {
            case .iss: iss
            case .sub: sub
            case .aud: aud
            case .exp: exp
            case .iat: iat
            case .authTime: authTime
            case .nonce: nonce
            case .azp: azp
            case .atHash: atHash
            case .acr: acr
            case .amr: amr
            case .name: name
            case .email: email
            case .preferredUsername: preferredUsername
            }
        }
        set {
            switch claim {
            case .iss: iss = newValue
            case .sub: sub = newValue
            case .aud: aud = newValue
            case .exp: exp = newValue
            case .iat: iat = newValue
            case .authTime: authTime = newValue
            case .nonce: nonce = newValue
            case .azp: azp = newValue
            case .atHash: atHash = newValue
            case .acr: acr = newValue
            case .amr: amr = newValue
            case .name: name = newValue
            case .email: email = newValue
            case .preferredUsername: preferredUsername = newValue
            }
        }
    }

    /// Reads a payload (a JSON object's bytes) with ``JSONParser/scanObject(_:_:)``:
    /// the claims above are parsed, every other member is only checked.
    /// Nil when the full parser must read the payload instead.
    static func scan(_ payload: UnsafeBufferPointer<UInt8>) -> IDTokenClaimValues? {
        var values = IDTokenClaimValues()
        let scanned = JSONParser.scanObject(payload) { name, parser throws(JSONParser.Failure) in
            if let claim = Claim(name) {
                values[claim] = try parser.parseValue()
            } else {
                try parser.skipValue()
            }
        }
        return scanned ? values : nil
    }
}
