public import AuthFlow
public import Foundation
public import Logging

/// The DPoP key (RFC 9449) of a session that an Apple app signs in with
/// ``AppleSignInSettings``: the rules the Apple layer follows, kept here so
/// they are the same, and tested, on every platform.
///
/// | `DPoP` setting | Secure Enclave | Key | Kept in |
/// |---|---|---|---|
/// | `false` (default) | – | none: bearer tokens | – |
/// | `true` | available | a Secure Enclave key | its opaque, device-bound handle, in a Keychain item of its own (``CredentialKey/secureEnclaveDPoPKeyAccount``) |
/// | `true` | not available (Simulator, tvOS, a Mac without one) | a software ``DPoPKey`` | the ``SessionRecord``, with the tokens |
public enum AppleDPoPKeyChoice: Sendable, Equatable {
    /// No DPoP: the session uses bearer tokens.
    case none
    /// A software ``DPoPKey``, kept in the session record.
    case software
    /// A key made and used in the Secure Enclave; its handle is kept in the
    /// Keychain beside the session record.
    case secureEnclave

    /// The key for a new sign-in: `dpop` is the ``AppleSignInSettings/usesDPoP``
    /// setting, `secureEnclaveAvailable` whether this device has a Secure
    /// Enclave that can hold the key.
    public init(dpop: Bool, secureEnclaveAvailable: Bool) {
        self = dpop ? (secureEnclaveAvailable ? .secureEnclave : .software) : .none
    }

    /// The key a stored session needs when it is restored, from its record
    /// and the Secure Enclave key handle stored beside it (nil when there is
    /// no such Keychain item). The stored session decides, not the current
    /// setting, so turning `DPoP` on or off applies from the next sign-in.
    ///
    /// - Returns: ``secureEnclave`` when the record's tokens are DPoP-bound
    ///   and the record holds no key of its own (the handle must then be
    ///   opened and given to ``AuthSession/restore(from:authentication:dpopKey:transport:logger:leeway:)``);
    ///   ``software`` when the record holds its key; ``none`` for bearer
    ///   tokens (a left-over handle is then ignored).
    /// - Throws: ``AuthFlowError/Category/reauthenticationRequired`` when the
    ///   tokens are DPoP-bound to a key that neither the record nor a handle
    ///   holds: without it the tokens cannot be used, and a bearer session
    ///   must not be made of them.
    public static func restoring(_ record: SessionRecord, secureEnclaveHandle: Data?) throws -> AppleDPoPKeyChoice {
        if record.dpopKey != nil { return .software }
        guard record.credentials.token.tokenType.caseInsensitiveCompare("DPoP") == .orderedSame else { return .none }
        guard let handle = secureEnclaveHandle, !handle.isEmpty else {
            throw AuthFlowError(
                .reauthenticationRequired,
                "the stored session is bound to a Secure Enclave DPoP key whose Keychain item is missing",
                recovery: "Sign in again.", remedy: .signInAgain)
        }
        return .secureEnclave
    }

    /// The error for a stored Secure Enclave key handle that this device's
    /// enclave cannot open (damaged, or from another device): the session's
    /// tokens are bound to a key that is gone, so only a new sign-in helps.
    public static func unusableSecureEnclaveHandle(_ underlyingError: (any Error & Sendable)?) -> AuthFlowError {
        AuthFlowError(
            .reauthenticationRequired, "the stored session's Secure Enclave DPoP key cannot be opened on this device",
            recovery: "Sign in again.", remedy: .signInAgain, underlyingError: underlyingError)
    }
}

extension AppleDPoPKeyChoice {
    /// Restores the session kept in `store`, without the network, bound to
    /// the DPoP key its tokens are bound to: the record's own software key,
    /// or the Secure Enclave key that `openSecureEnclaveKey` opens from the
    /// stored `secureEnclaveHandle` (``restoring(_:secureEnclaveHandle:)``
    /// decides). Nil when nothing is stored. What `AppleSignIn.restore()`
    /// does, with the Keychain and the enclave given from outside.
    ///
    /// - Throws: ``AuthFlowError/Category/reauthenticationRequired`` when the
    ///   tokens are DPoP-bound and the handle is missing or
    ///   `openSecureEnclaveKey` fails (its ``AuthFlowError`` is kept as the
    ///   underlying error); otherwise what
    ///   ``AuthSession/restore(from:authentication:dpopKey:transport:logger:leeway:)`` throws.
    public static func restoreSession(
        from store: any CredentialStore, secureEnclaveHandle: Data?,
        transport: any HTTPTransport = URLSessionTransport(), logger: Logger = .authFlow(),
        openSecureEnclaveKey: (Data) throws -> any DPoPSigningKey
    ) async throws -> AuthSession? {
        guard let record = try await store.load() else { return nil }
        switch try restoring(record, secureEnclaveHandle: secureEnclaveHandle) {
        case .none, .software:
            return try await AuthSession.restore(record, from: store, transport: transport, logger: logger)
        case .secureEnclave:
            guard let handle = secureEnclaveHandle else { throw unusableSecureEnclaveHandle(nil) }
            let key: any DPoPSigningKey
            do {
                key = try openSecureEnclaveKey(handle)
            } catch {
                throw unusableSecureEnclaveHandle(error as? AuthFlowError)
            }
            return try await AuthSession.restore(record, from: store, dpopKey: key, transport: transport, logger: logger)
        }
    }
}

extension AppleDPoPKeyChoice {
    /// The sign-in steps around the browser, with this key choice: binds
    /// `client` to a new key (a software ``DPoPKey``, or the Secure Enclave
    /// key `makeSecureEnclaveKey` makes), runs `authorize` (the browser
    /// sign-in and code exchange) with it, then stores the Secure Enclave
    /// key's handle — or nil, which removes a left-over one — and only then
    /// starts the session in `store`, so a stored record never names a key
    /// whose handle is not stored. What `AppleSignIn.signIn` does, with the
    /// Keychain and the enclave given from outside.
    public func startSession(
        client: OAuthClient, store: any CredentialStore,
        makeSecureEnclaveKey: () throws -> (key: any DPoPSigningKey, handle: Data),
        storeSecureEnclaveHandle: (Data?) async throws -> Void,
        authorize: (OAuthClient) async throws -> OAuthCredentials
    ) async throws -> AuthSession {
        var client = client
        var handle: Data?
        switch self {
        case .none: client.dpop = nil
        case .software: client.dpop = DPoPBinding(key: DPoPKey())
        case .secureEnclave:
            do {
                let made = try makeSecureEnclaveKey()
                client.dpop = DPoPBinding(key: made.key)
                handle = made.handle
            } catch {
                // SecureEnclave.isAvailable said yes but no key could be made
                // (a Mac whose app lacks the signing it needs, an enclave
                // that is busy): bind the session to a software key, kept
                // in the record, rather than fail the sign-in.
                client.logger.notice(
                    "no Secure Enclave DPoP key could be made; using a software key",
                    metadata: ["error": "\(String(describing: error))"])
                client.dpop = DPoPBinding(key: DPoPKey())
            }
        }
        let credentials = try await authorize(client)
        try await storeSecureEnclaveHandle(handle)
        return try await AuthSession.start(client: client, credentials: credentials, store: store)
    }
}

extension CredentialKey {
    /// The Keychain account of the Secure Enclave DPoP key handle of the
    /// session stored under ``account``: the same parts and a fourth,
    /// `secure-enclave-dpop-key`, so it never equals any session's account.
    public var secureEnclaveDPoPKeyAccount: String { account + " secure-enclave-dpop-key" }
}
