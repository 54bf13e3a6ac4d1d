public import AuthFlow
public import Foundation
public import Logging

/// The providers an Apple app signs in with, from the `AuthFlow` dictionary
/// of its Info.plist: one (the dictionary's own `Issuer` and `ClientID`) or
/// several (its `Providers` array), each with its own client and Keychain
/// item. The app chooses: from a list it shows (``all``), by the issuer it
/// already knows (``provider(for:)``), or by the account the user types
/// (``provider(forAccount:transport:timeout:logger:)``, WebFinger).
/// Platform-neutral, so the rules are tested everywhere.
///
/// ```
/// AuthFlow = {
///     RedirectURI = "https://app.example.com/oauth/callback";
///     Scopes = "openid profile offline_access";
///     Providers = (
///         { Name = "Carrier A"; Issuer = "https://id.carrier-a.example"; ClientID = "app-a"; },
///         { Name = "Carrier B"; Issuer = "https://login.carrier-b.example"; ClientID = "app-b"; Scopes = "openid"; }
///     );
/// }
/// ```
///
/// Each entry of `Providers` is read as a whole `AuthFlow` dictionary
/// (``AppleSignInSettings``) made of the top-level keys with the entry's own
/// keys over them, so what all providers share (redirect URIs, Keychain
/// access group, biometric protection, DPoP) is written once. `Name` is what
/// the app shows; it defaults to the issuer's host.
public struct AppleSignInProviders: Sendable, Equatable {
    /// One provider the app can sign in with.
    public struct Provider: Sendable, Equatable, Identifiable {
        /// What the app shows for it (`Name`, or the issuer's host).
        public let name: String
        /// Its settings: client, redirects, Keychain item.
        public let settings: AppleSignInSettings

        /// Its Keychain item's identity (issuer and client ID), unique among the app's providers.
        public var id: CredentialKey { settings.credentialKey }

        /// The issuer, when the provider is configured by one.
        public var issuer: Issuer? {
            switch settings.client.provider {
            case .issuer(let issuer): issuer
            case .metadata(let metadata): metadata.issuer
            case .endpoints: nil
            }
        }
    }

    /// Every provider, in the Info.plist's order.
    public let all: [Provider]

    /// Reads the providers; a malformed entry is a `configuration` error naming its index.
    public init(dictionary: [String: Any]) throws {
        guard let entries = dictionary["Providers"] else {
            all = [try Self.provider(dictionary, index: nil)]
            return
        }
        guard let list = entries as? [[String: Any]], !list.isEmpty else {
            throw AuthFlowError(
                .configuration, "Providers must be a non-empty array of dictionaries",
                recovery: "Give each provider as a dictionary with at least Issuer and ClientID in the AuthFlow Info.plist dictionary.")
        }
        var shared = dictionary
        shared["Providers"] = nil
        var providers: [Provider] = []
        for (index, entry) in list.enumerated() {
            let provider = try Self.provider(shared.merging(entry) { _, own in own }, index: index)
            if let twin = providers.first(where: { $0.id == provider.id || $0.name == provider.name }) {
                throw AuthFlowError(
                    .configuration, "Providers[\(index)] repeats \(twin.name): two providers need different names and issuers or clients",
                    recovery: "Give every entry of Providers its own Name, and its own Issuer or ClientID.")
            }
            providers.append(provider)
        }
        all = providers
    }

    /// The provider whose issuer is `issuer` (compared exactly), if the app has one.
    public func provider(for issuer: Issuer) -> Provider? {
        all.first { $0.issuer == issuer }
    }

    /// The provider that signs in `account`: its host names the issuer by
    /// WebFinger (``AuthFlow/Issuer/discover(account:transport:timeout:logger:)``,
    /// https only, bounded in size and time), which must be one of the app's
    /// providers: an app can sign in only where it has a client.
    ///
    /// - Throws: the discovery's errors; ``AuthFlowError/Category/configuration``
    ///   when the issuer found is none of the app's providers.
    public func provider(
        forAccount account: String, transport: any HTTPTransport = URLSessionTransport(), timeout: TimeInterval = 30,
        logger: Logger = .authFlow()
    ) async throws -> Provider {
        try await provider(forAccount: account) { account in
            try await Issuer.discover(account: account, transport: transport, timeout: timeout, logger: logger)
        }
    }

    /// ``provider(forAccount:transport:timeout:logger:)`` with the discovery given.
    func provider(forAccount account: String, discover: (String) async throws -> Issuer) async throws -> Provider {
        let issuer = try await discover(account)
        guard let provider = provider(for: issuer) else {
            throw AuthFlowError(
                .configuration,
                "the account's provider (\(issuer.identifier)) is not one this app signs in with (\(all.map(\.name).joined(separator: ", ")))",
                recovery: "Choose one of the app's providers, or add this issuer with the app's client to Providers.")
        }
        return provider
    }

    private static func provider(_ dictionary: [String: Any], index: Int?) throws -> Provider {
        let settings: AppleSignInSettings
        do {
            settings = try AppleSignInSettings(dictionary: dictionary)
        } catch let error as AuthFlowError {
            guard let index else { throw error }
            throw AuthFlowError(error.category, "Providers[\(index)]: \(error.message)", recovery: error.recovery, remedy: error.remedy)
        }
        let name: String
        switch dictionary["Name"] {
        case nil:
            name = Self.host(of: settings) ?? settings.client.clientID
        case let text as String where !text.trimmingCharacters(in: .whitespaces).isEmpty:
            name = text.trimmingCharacters(in: .whitespaces)
        default:
            throw AuthFlowError(
                .configuration, "\(index.map { "Providers[\($0)]: " } ?? "")Name must be a non-empty string",
                recovery: "Set Name to what the app shows for this provider.")
        }
        return Provider(name: name, settings: settings)
    }

    private static func host(of settings: AppleSignInSettings) -> String? {
        switch settings.client.provider {
        case .issuer(let issuer): URL(string: issuer.identifier)?.host
        case .metadata(let metadata): metadata.issuer.flatMap { URL(string: $0.identifier)?.host } ?? metadata.tokenEndpoint.host
        case .endpoints(_, let token): token.host
        }
    }
}
