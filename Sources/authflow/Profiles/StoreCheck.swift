#if CLI // the CLI package trait
import AuthFlow
import AuthFlowPostgres
import Foundation
import Logging

/// Everything about where the credentials will be kept that can be checked
/// before a browser opens, checked then: a sign-in the store then refuses
/// wastes the user's time and leaves an authorization code used for
/// nothing.
///
/// - Every store: the profile's directory (which keeps the settings, and
///   with the file store the credentials) exists or can be made, is the
///   user's, and is private (mode 0700).
/// - The desktop keyring (named, or chosen because one runs): a session
///   with the Secret Service and its default collection unlocked without a
///   prompt (a locked keyring is `storage` `keyring_locked`).
/// - PostgreSQL: the password file and the encryption key are read and the
///   key is 32 bytes of base64 (`configuration`); then the server is
///   reached, over TLS unless the URL says otherwise or the host is a
///   loopback IP, and the profile's row read with that key (`network`,
///   `storage`).
enum StoreCheck {
    static func beforeSignIn(_ kind: StoreKind, profile: String, logger: Logger) async throws {
        try ProfileFile.prepareDirectory(of: try Profile.url(for: profile))
        switch kind {
        case .file: return
        case .secretService: try ProfileKeyring.checkWritable(profile: profile)
        case .automatic: if ProfileKeyring.isAvailable() { try ProfileKeyring.checkWritable(profile: profile) }
        case .postgresql(let address):
            try await SharedStore.with(address, profile: profile, logger: logger) { shared in
                try await shared.probe()
                _ = try await shared.store.load()
            }
        }
    }
}
#endif
