#if CLI // the CLI package trait
extension Login {
    /// The profile's `credential_store` for a sign-in with `kind`: the
    /// keyring when named, or when not named and a Secret Service runs
    /// (otherwise the file, said once here on stderr).
    static func credentialStore(for kind: StoreKind) -> String? {
        switch kind {
        case .secretService: return ProfileKeyring.storeName
        case .file, .postgresql: return nil
        case .automatic:
            if ProfileKeyring.isAvailable() { return ProfileKeyring.storeName }
            Output.stderr(
                "No desktop keyring (Secret Service) is running on the session bus: the credentials are kept in the profile file, "
                    + "readable by you only (mode 0600).")
            return nil
        }
    }

    /// A profile signed in again into the file no longer needs its old keyring item.
    static func leaveKeyringIfMoving(_ profile: Profile) {
        guard !profile.usesKeyring, let stored = try? Profile.loadSettingsIfPresent(profile.name), stored.usesKeyring else { return }
        try? ProfileKeyring.delete(profile: profile.name)
    }
}
#endif
