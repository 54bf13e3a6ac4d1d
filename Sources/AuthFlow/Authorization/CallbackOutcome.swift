#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The parameters of an authorization response, after AuthFlow checked the
/// redirect URI, `state` and `iss`: what a provider-specific callback
/// interpreter reads.
public struct CallbackParameters: Sendable, Equatable {
    private let values: [String: String]

    init(_ values: [String: String]) { self.values = values }

    /// The value of the parameter `name`, if present.
    public subscript(name: String) -> String? { values[name] }
    /// The parameter names present.
    public var names: Set<String> { Set(values.keys) }
}

/// What a callback turned out to be: a standard authorization code, or a
/// provider-specific outcome that an app's interpreter recognised.
public enum CallbackOutcome<Custom: Sendable>: Sendable {
    /// A standard `code` response, ready to exchange.
    case code(AuthorizationGrant)
    /// A provider-specific outcome (for example Zephr's
    /// `status=partial&state_key=…`).
    case custom(Custom)
}

extension AuthorizationRequest {
    /// Validates a callback like ``validateCallback(_:)`` — redirect URI,
    /// `state`, `iss` first, always — then lets `interpret` recognise a
    /// provider-specific outcome. When it returns nil, the standard rules
    /// apply (`error` → `oauth_error`, `code` → a grant).
    public func validateCallback<Custom: Sendable>(
        _ callback: URL,
        interpret: (CallbackParameters) throws -> Custom?
    ) throws -> CallbackOutcome<Custom> {
        let parameters = try checkedParameters(callback)
        if let custom = try interpret(CallbackParameters(parameters)) { return .custom(custom) }
        return .code(try grant(from: parameters))
    }
}
