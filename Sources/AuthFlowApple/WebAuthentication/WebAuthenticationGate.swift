/// One browser session on screen at a time. The system presents one
/// web-authentication sheet per app; a second request while one is up (a
/// double tap on "Sign in", a sign-out started during a sign-in) would fail
/// as a session that cannot start and read as a configuration error. The
/// gate refuses it first with ``WebAuthenticationErrors/alreadyInProgress``,
/// and the session on screen goes on.
@MainActor
package final class WebAuthenticationGate {
    /// The app's gate: every user agent of the Apple layer goes through it.
    package static let shared = WebAuthenticationGate()

    private var inProgress = false

    package init() {}

    /// Runs `body` as the one session on screen, or throws
    /// ``WebAuthenticationErrors/alreadyInProgress`` without running it.
    package func run<T>(_ body: () async throws -> T) async throws -> T {
        guard !inProgress else { throw WebAuthenticationErrors.alreadyInProgress }
        inProgress = true
        defer { inProgress = false }
        return try await body()
    }
}
