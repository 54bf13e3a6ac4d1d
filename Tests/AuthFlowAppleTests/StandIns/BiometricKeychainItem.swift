import Foundation

@testable import AuthFlowApple

/// A behavioural stand-in for a Keychain item with a biometric access
/// control and the `LAContext` that opens it, as Apple documents them: a
/// context that has authenticated opens the item again without a prompt; a
/// new context prompts; the user may approve, cancel, or be locked out; a
/// change of enrolled biometrics deletes a `.biometryCurrentSet` item.
final class BiometricKeychainItem: @unchecked Sendable {
    final class Context {
        var authenticated = false
    }

    enum Answer { case approve, cancel, lockedOut }

    private(set) var prompts = 0
    var answers: [Answer] = []
    var data: Data? = Data("record".utf8)
    var marker = true

    func read(_ context: Context) -> (status: KeychainStatus, data: Data?) {
        guard let data else { return (.itemNotFound, nil) }
        if !context.authenticated {
            prompts += 1
            switch answers.isEmpty ? .approve : answers.removeFirst() {
            case .approve: context.authenticated = true
            case .cancel: return (.userCanceled, nil)
            case .lockedOut: return (.authFailed, nil)
            }
        }
        return (.success, data)
    }

    /// The user adds a finger or a face: the system drops the item.
    func changeEnrolment() { data = nil }
}
