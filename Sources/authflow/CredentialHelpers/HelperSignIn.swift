#if CLI // the CLI package trait
import AuthFlow
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// A sign-in started by a credential helper, one per profile at a time
/// across processes: when twenty `git` or `kubectl` invocations find the
/// profile signed out together, the first takes the profile's sign-in lock
/// (`NAME.json.signin.lock`) and opens the browser (or shows the device
/// code); the others print that they wait, wait for the lock (bounded by
/// the browser timeout and a minute), then read the profile again and use
/// the credentials the first one saved. Only when the profile still holds
/// nothing new does a waiter sign in itself.
///
/// The sign-in is `authflow login --profile NAME` with the settings the
/// profile kept; its instructions go to stderr, and nothing is printed on
/// stdout, which belongs to the helper's protocol.
struct HelperSignIn {
    let profileName: String
    /// Where the new credentials go (the profile's place, or a shared store).
    let store: any ProfileSessionStore
    var timeout: TimeInterval = 30
    var browserTimeout: TimeInterval = 300
    var logger: Logger

    /// Signs in unless another process did since `token` (the access token
    /// the caller found unusable, or nil when it found none) was read.
    func run(replacing token: String?) async throws {
        let url = try Profile.url(for: profileName).appendingPathExtension("signin.lock")
        let name = "the sign-in of profile \(profileName)"
        let body: @Sendable () async throws -> Void = { try await signInUnlessDone(replacing: token) }
        do {
            try await FileLock(url: url, timeout: 0, name: name).withLock(body)
        } catch let error as AuthFlowError where error.category == .timeout {
            Output.stderr("Another process is signing in to profile \(profileName); waiting for it…")
            try await FileLock(url: url, timeout: browserTimeout + 60, name: name).withLock(body)
        }
    }

    private func signInUnlessDone(replacing token: String?) async throws {
        let current: OAuthCredentials?
        do {
            current = try await store.signedInCredentials()
        } catch let error as AuthFlowError where error.category == .reauthenticationRequired {
            current = nil
        }
        if let current, current.accessToken != token {
            logger.debug("another process signed in meanwhile")
            return
        }
        // A store that will refuse the credentials fails before the browser opens.
        try await store.checkBeforeSignIn()
        Output.stderr("Profile \(profileName) needs a sign-in.")
        let arguments = ["--profile", profileName, "--browser-timeout", String(browserTimeout), "--timeout", String(timeout)]
        let login = try Login.parse(arguments)
        // Standard input is the helper's protocol: a pasted redirect comes from the terminal.
        let (profile, client) = try await HeadlessSignIn.$pasteFromTerminal.withValue(true) {
            try await login.signedInAgain(logger: logger)
        }
        _ = try await store.saveSignIn(profile, client: client)
        Output.stderr("Signed in; profile \(profileName) saved.")
    }
}
#endif
