/// Ends one system background task exactly once, whichever comes first: the
/// expiration handler, which the system may call before
/// `beginBackgroundTask` has even returned the task's identifier (when no
/// background time is left), or the identifier. A task left unended when its
/// time runs out gets the app terminated.
@MainActor
package final class BackgroundTaskEnding<ID> {
    private var identifier: ID?
    private var expired = false
    private var ended = false
    private let end: (ID) -> Void

    /// `end` ends a task (`UIApplication.endBackgroundTask`).
    package init(end: @escaping (ID) -> Void) {
        self.end = end
    }

    /// The expiration rule said to end the task: ends it now if its
    /// identifier is known, else as soon as it is.
    package func expire() {
        expired = true
        endIfReady()
    }

    /// `beginBackgroundTask` returned `identifier`.
    package func began(_ identifier: ID) {
        self.identifier = identifier
        endIfReady()
    }

    private func endIfReady() {
        guard expired, !ended, let identifier else { return }
        ended = true
        end(identifier)
    }
}
