/// The payload members that ``IDTokenClaims`` types, read into typed storage
/// but not yet checked, from a parsed dictionary. (The verifier's scan keeps
/// places in the payload instead, ``PayloadClaims``; its ``PayloadClaims/values``
/// gives this reading, and the tests hold the two to it.)
struct IDTokenClaimValues: Sendable, Equatable {
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
        /// Names up to eight bytes are compared as one integer (``packedName(_:maxCount:)``).
        // The name as a view of the payload, matched without making a String (fuzzed: Fuzz/idtoken-scan.swift).
        init?(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard let packed = packedName(bytes, maxCount: 8) else {
                if bytes.equals("auth_time") {
                    self = .authTime
                    return
                }
                if bytes.equals("preferred_username") {
                    self = .preferredUsername
                    return
                }
                return nil
            }
            switch packed {
            case 0x69_73_73: self = .iss // "iss"
            case 0x73_75_62: self = .sub // "sub"
            case 0x61_75_64: self = .aud // "aud"
            case 0x65_78_70: self = .exp // "exp"
            case 0x69_61_74: self = .iat // "iat"
            case 0x61_7A_70: self = .azp // "azp"
            case 0x61_63_72: self = .acr // "acr"
            case 0x61_6D_72: self = .amr // "amr"
            case 0x6E_61_6D_65: self = .name // "name"
            case 0x6E_6F_6E_63_65: self = .nonce // "nonce"
            case 0x65_6D_61_69_6C: self = .email // "email"
            case 0x61_74_5F_68_61_73_68: self = .atHash // "at_hash"
            default: return nil
            }
        }
    }

    /// A claim as read: missing, of the expected type, or present with another type.
    enum Reading<Value: Sendable & Equatable>: Sendable, Equatable {
        case absent
        case value(Value)
        case wrongType

        /// The value, when it has the expected type.
        var value: Value? {
            if case .value(let value) = self { return value }
            return nil
        }
    }

    var iss = Reading<String>.absent, sub = Reading<String>.absent, nonce = Reading<String>.absent
    var azp = Reading<String>.absent, atHash = Reading<String>.absent, acr = Reading<String>.absent
    var exp = Reading<Double>.absent, iat = Reading<Double>.absent, authTime = Reading<Double>.absent
    /// `aud` as a non-empty list of strings; `wrongType` for anything else.
    var aud = Reading<[String]>.absent
    /// The strings of an `amr` array; nil when absent or not an array.
    var amr: [String]?
    /// Profile claims, nil when absent or not strings.
    var name: String?, email: String?, preferredUsername: String?

    /// No claims.
    init() {}

    /// The typed claims of a parsed payload.
    init(_ claims: [String: JSONMemberValue]) {
        for claim in Claim.allCases {
            if let value = claims[claim.name] { set(claim, to: value) }
        }
    }

    /// Records `value` as the reading of `claim`.
    mutating func set(_ claim: Claim, to value: JSONMemberValue) {
        switch claim {
        case .iss: iss = Self.string(value)
        case .sub: sub = Self.string(value)
        case .nonce: nonce = Self.string(value)
        case .azp: azp = Self.string(value)
        case .atHash: atHash = Self.string(value)
        case .acr: acr = Self.string(value)
        case .exp: exp = Self.number(value)
        case .iat: iat = Self.number(value)
        case .authTime: authTime = Self.number(value)
        case .name: name = value.stringValue
        case .email: email = value.stringValue
        case .preferredUsername: preferredUsername = value.stringValue
        case .amr: amr = value.arrayValue?.compactMap(\.stringValue)
        case .aud: aud = Self.audience(value)
        }
    }

    /// `aud` read from its value: one string, or a non-empty array of strings.
    static func audience(_ value: JSONMemberValue) -> Reading<[String]> {
        switch value {
        case .string(let audience): .value([audience])
        case .array(let values) where !values.isEmpty && values.allSatisfy({ $0.stringValue != nil }):
            .value(values.compactMap(\.stringValue))
        default: .wrongType
        }
    }

    private static func string(_ value: JSONMemberValue) -> Reading<String> {
        if case .string(let string) = value { return .value(string) }
        return .wrongType
    }

    private static func number(_ value: JSONMemberValue) -> Reading<Double> {
        if case .number(let number) = value, number.isFinite { return .value(number) }
        return .wrongType
    }
}
