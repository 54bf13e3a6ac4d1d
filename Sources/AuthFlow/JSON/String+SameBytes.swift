extension String {
    /// Whether this string is `other` byte for byte (their UTF-8), the
    /// comparison of JWT claim strings (RFC 7519 §7.3: no canonicalisation),
    /// issuer identifiers (RFC 9207 §2.4, OpenID Connect Core §3.1.3.7) and
    /// audiences. Swift's `==` compares by canonical equivalence instead,
    /// which takes the Kelvin sign (U+212A) for `K`.
    package func hasSameBytes(as other: String) -> Bool { utf8.elementsEqual(other.utf8) }
}
