package import AuthFlow

extension SecretServiceError {
    /// The error a caller reports: `storage`, with the reason `keyring_locked`
    /// for a keyring that needs its password, else `keyring_unavailable`.
    /// Never holds a secret (D-Bus error messages name objects, not values).
    ///
    /// - Parameters:
    ///   - fallback: the other place a caller can keep the credentials in,
    ///     added to every recovery; nil for none.
    ///   - field: how a value the bus chose is shown (the `authflow` command escapes it for the terminal).
    package func authFlowError(fallback: String?, field: (String) -> String = { $0 }) -> AuthFlowError {
        let more = fallback.map { " \($0)" } ?? ""
        switch self {
        case .locked:
            return AuthFlowError(
                .storage, "the desktop keyring is locked, and authflow cannot ask for its password",
                reason: .init(rawValue: "keyring_locked"),
                recovery: "Unlock it (sign in to the desktop, or open Passwords and Keys), then try again.\(more)")
        case .noDefaultCollection:
            return AuthFlowError(
                .storage, "the desktop keyring has no default collection",
                reason: .init(rawValue: "keyring_unavailable"), recovery: "Create one (Passwords and Keys).\(more)")
        case .unexpectedReply(let method):
            return AuthFlowError(
                .storage, "the Secret Service answered \(method) with an unexpected reply", reason: .init(rawValue: "keyring_unavailable"),
                recovery: fallback)
        case .bus(let bus):
            return AuthFlowError(
                .storage, "the desktop keyring cannot be used: \(Self.describe(bus, field: field))",
                reason: .init(rawValue: "keyring_unavailable"), recovery: fallback)
        }
    }

    private static func describe(_ error: DBusConnectionError, field: (String) -> String) -> String {
        switch error {
        case .noSessionBus: "there is no session bus"
        case .cannotConnect(let reason): "cannot connect to the session bus (\(reason))"
        case .authenticationRejected: "the session bus refused the authentication"
        case .timedOut(let what): "the session bus did not answer in time (\(what))"
        case .closed: "the session bus closed the connection"
        case .wire(let wire): "the session bus sent a malformed message (\(wire))"
        case .remote(let name, let message): "\(name): \(field(String(message.prefix(200))))"
        case .unexpectedReply(let signature): "an unexpected reply (wanted \(signature))"
        }
    }
}
