/// The grammar of `WWW-Authenticate` (RFC 9110 §11.6.1, §11.2, §5.6):
///
///     WWW-Authenticate = #challenge
///     challenge  = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
///     auth-param = token BWS "=" BWS ( token / quoted-string )
///     token68    = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
///
/// Lists allow empty elements (`, ,`). A comma inside a challenge starts
/// either its next parameter (`name =`) or the next challenge (a scheme).
/// One pass over the bytes, no backtracking beyond one lookahead token.
struct ChallengeReader {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func challenges() -> [AuthenticationChallenge] {
        var found: [AuthenticationChallenge] = []
        while true {
            skipListSeparators()
            guard index < bytes.count else { return found }
            guard let challenge = challenge() else { return found }
            found.append(challenge)
        }
    }

    /// One challenge, from its scheme up to (not including) the comma that
    /// starts the next one; nil on a syntax error.
    private mutating func challenge() -> AuthenticationChallenge? {
        guard let scheme = token() else { return nil }
        let spaces = skipWhitespace()
        if atEndOfElement { return AuthenticationChallenge(scheme: scheme.lowercased()) }
        guard spaces > 0 else { return nil }
        if let token68 = token68() { return AuthenticationChallenge(scheme: scheme.lowercased(), token68: token68) }
        var parameters: [(name: String, value: String)] = []
        while true {
            guard let (name, value) = parameter() else { return nil }
            // RFC 9110 §11.2: each parameter name occurs once per challenge.
            guard !parameters.contains(where: { $0.name == name }) else { return nil }
            parameters.append((name, value))
            skipWhitespace()
            guard index < bytes.count else { break }
            guard bytes[index] == UInt8(ascii: ",") else { return nil }
            let comma = index
            skipListSeparators()
            // Another parameter of this challenge (`name =`), or the next challenge.
            guard index < bytes.count, startsParameter() else {
                index = comma
                break
            }
        }
        return AuthenticationChallenge(scheme: scheme.lowercased(), parameters: parameters)
    }

    /// `token BWS "=" BWS ( token / quoted-string )`, name lowercased.
    private mutating func parameter() -> (String, String)? {
        guard let name = token() else { return nil }
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else { return nil }
        index += 1
        skipWhitespace()
        guard index < bytes.count else { return nil }
        let value = bytes[index] == UInt8(ascii: "\"") ? quotedString() : token()
        guard let value else { return nil }
        return (name.lowercased(), value)
    }

    /// A token68 that fills the rest of the challenge; the position is
    /// left unchanged when what follows is not one.
    private mutating func token68() -> String? {
        let start = index
        var end = index
        while end < bytes.count, Token68.isCharacter(bytes[end]) { end += 1 }
        guard end > start else { return nil }
        while end < bytes.count, bytes[end] == UInt8(ascii: "=") { end += 1 }
        var after = end
        while after < bytes.count, ChallengeReader.isWhitespace(bytes[after]) { after += 1 }
        guard after == bytes.count || bytes[after] == UInt8(ascii: ",") else { return nil }
        index = after
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// Whether a parameter (`token BWS "="`) starts here.
    private func startsParameter() -> Bool {
        var probe = index
        while probe < bytes.count, ChallengeReader.isTokenCharacter(bytes[probe]) { probe += 1 }
        guard probe > index else { return false }
        while probe < bytes.count, ChallengeReader.isWhitespace(bytes[probe]) { probe += 1 }
        // A scheme is followed by a space and credentials, a parameter name by "=".
        return probe < bytes.count && bytes[probe] == UInt8(ascii: "=")
    }

    private mutating func token() -> String? {
        let start = index
        while index < bytes.count, ChallengeReader.isTokenCharacter(bytes[index]) { index += 1 }
        return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
    }

    /// `DQUOTE *( qdtext / quoted-pair ) DQUOTE`, unescaped; nil when unterminated
    /// or when it holds a control character.
    private mutating func quotedString() -> String? {
        index += 1
        var value: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: value, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.count, ChallengeReader.isQuotedPairCharacter(bytes[index]) else { return nil }
                value.append(bytes[index])
                index += 1
            default:
                guard ChallengeReader.isQuotedTextCharacter(byte) else { return nil }
                value.append(byte)
            }
        }
        return nil
    }

    private var atEndOfElement: Bool { index == bytes.count || bytes[index] == UInt8(ascii: ",") }

    @discardableResult
    private mutating func skipWhitespace() -> Int {
        let start = index
        while index < bytes.count, ChallengeReader.isWhitespace(bytes[index]) { index += 1 }
        return index - start
    }

    private mutating func skipListSeparators() {
        while index < bytes.count, ChallengeReader.isWhitespace(bytes[index]) || bytes[index] == UInt8(ascii: ",") { index += 1 }
    }

    // MARK: character classes (RFC 9110 §5.6.2, §5.6.4, §11.2)

    private static let tokenSymbols = Set("!#$%&'*+-.^_`|~".utf8)

    static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: tokenSymbols.contains(byte)
        }
    }

    /// `qdtext = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text`.
    static func isQuotedTextCharacter(_ byte: UInt8) -> Bool {
        byte == 0x09 || byte == 0x20 || byte == 0x21 || (0x23...0x5B).contains(byte) || (0x5D...0x7E).contains(byte) || byte >= 0x80
    }

    /// `quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text )`.
    static func isQuotedPairCharacter(_ byte: UInt8) -> Bool {
        byte == 0x09 || byte == 0x20 || (0x21...0x7E).contains(byte) || byte >= 0x80
    }
}
