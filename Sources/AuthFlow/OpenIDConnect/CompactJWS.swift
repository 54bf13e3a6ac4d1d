import Foundation

/// A JWS in compact serialization (RFC 7515 §7.1), parsed but not verified.
public struct CompactJWS: Sendable, Equatable {
    /// The protected header.
    public let header: [String: JSONValue]
    /// The payload, parsed as a JSON object (JWT claims).
    public let claims: [String: JSONValue]
    /// The signature bytes.
    public let signature: [UInt8]
    /// `BASE64URL(header) '.' BASE64URL(payload)`: what was signed.
    public let signingInput: [UInt8]
    /// The raw payload bytes.
    public let payload: [UInt8]

    /// The `alg` header member.
    public var algorithm: String? { header["alg"]?.stringValue }
    /// The `kid` header member.
    public var keyID: String? { header["kid"]?.stringValue }

    /// Parses `token`; anything but three base64url segments with JSON-object
    /// header and payload is `id_token_invalid` / `malformed`.
    public init(_ token: String) throws {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw AuthFlowError.idToken(.malformed, "a JWS has three segments, this has \(parts.count)") }
        guard let headerBytes = Base64URL.decode(parts[0]), let payloadBytes = Base64URL.decode(parts[1]),
              let signatureBytes = Base64URL.decode(parts[2]) else {
            throw AuthFlowError.idToken(.malformed, "a JWS segment is not base64url")
        }
        guard let header = CompactJWS.object(headerBytes) else { throw AuthFlowError.idToken(.malformed, "the JWS header is not a JSON object") }
        guard let claims = CompactJWS.object(payloadBytes) else { throw AuthFlowError.idToken(.malformed, "the JWS payload is not a JSON object") }
        self.header = header
        self.claims = claims
        payload = payloadBytes
        signature = signatureBytes
        signingInput = Array(parts[0].utf8) + [UInt8(ascii: ".")] + Array(parts[1].utf8)
    }

    /// A JSON object whose member names are unique (duplicates are refused:
    /// two parsers could otherwise read different claims from one token).
    static func object(_ bytes: [UInt8]) -> [String: JSONValue]? {
        let data = Data(bytes)
        guard let object = JSONValue.object(from: data), !DuplicateKeyScanner.hasDuplicateKeys(bytes) else { return nil }
        return object
    }
}

/// Finds duplicate member names in any object of a JSON text.
enum DuplicateKeyScanner {
    static func hasDuplicateKeys(_ bytes: [UInt8]) -> Bool {
        var stack: [(isObject: Bool, keys: Set<String>, expectKey: Bool)] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "{"):
                stack.append((true, [], true))
            case UInt8(ascii: "["):
                stack.append((false, [], false))
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                _ = stack.popLast()
            case UInt8(ascii: ","):
                if let last = stack.indices.last, stack[last].isObject { stack[last].expectKey = true }
            case UInt8(ascii: "\""):
                var end = index + 1
                while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                    end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
                }
                if let last = stack.indices.last, stack[last].isObject, stack[last].expectKey {
                    let raw = bytes[index...min(end, bytes.count - 1)]
                    // Compare names as the parser sees them: escapes decoded
                    // (the decoder only runs for names that contain one).
                    let key: String
                    if raw.contains(UInt8(ascii: "\\")) {
                        guard let decoded = try? JSONDecoder().decode(String.self, from: Data(raw)) else { return true }
                        key = decoded
                    } else {
                        key = String(decoding: raw.dropFirst().dropLast(), as: UTF8.self)
                    }
                    if !stack[last].keys.insert(key).inserted { return true }
                    stack[last].expectKey = false
                }
                index = end
            default:
                break
            }
            index += 1
        }
        return false
    }
}
