public import AuthFlow

/// Issuers written as string literals in tests (`ProviderMetadata(issuer:
/// "https://id.example", …)`). A literal that is no valid issuer stops the
/// test at once: tests of invalid issuers call `Issuer(_:)` and check its error.
extension Issuer: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) {
        do {
            try self.init(value)
        } catch {
            fatalError("test issuer literal \(value) is not valid: \(error)")
        }
    }
}

/// Issuers written with interpolation (`"http://127.0.0.1:\(port)"`).
extension Issuer: ExpressibleByStringInterpolation {}
