import AuthFlow
import Foundation
import Testing

@testable import AuthFlowApple

@Suite struct AppleSignOutTests {
    let endSession = URL(string: "https://idp.example/logout?id_token_hint=x")!
    let postLogout = URL(string: "com.example.app:/signed-out")!

    func signOut(
        endSession: URL?, postLogout: URL?, ephemeral: Bool = false,
        deleteHandle: @escaping () throws -> Void = {},
        present: @escaping (URL, CallbackMatch) async throws -> URL
    ) async throws -> AppleSignOutResult {
        try await AppleSignOutSteps.run(
            postLogoutRedirectURI: postLogout, prefersEphemeralSession: ephemeral,
            localSignOut: { SignOutResult(endSessionURL: endSession, revocationFailures: []) },
            deleteKeyHandle: deleteHandle, present: present)
    }

    @Test func theBrowserStepRunsWhenItCanReturnAndWaitsForThePostLogoutRedirect() async throws {
        var presented: [(URL, CallbackMatch)] = []
        let result = try await signOut(endSession: endSession, postLogout: postLogout) { url, match in
            presented.append((url, match))
            return URL(string: "com.example.app:/signed-out?state=s")!
        }
        #expect(result.browserStep == .completed)
        #expect(presented.map(\.0) == [endSession])
        #expect(presented.map(\.1) == [.customScheme("com.example.app")])
    }

    @Test func withoutAPostLogoutRedirectTheSheetIsNeverOpened() async throws {
        let result = try await signOut(endSession: endSession, postLogout: nil) { _, _ in
            Issue.record("a page that can never return to the app was opened")
            return URL(string: "x:/")!
        }
        #expect(result.browserStep == .skippedNoPostLogoutRedirectURI)
    }

    @Test func anEphemeralSessionHasNoProviderCookiesToEnd() async throws {
        let result = try await signOut(endSession: endSession, postLogout: postLogout, ephemeral: true) { _, _ in
            Issue.record("the sheet was opened for an ephemeral session")
            return URL(string: "x:/")!
        }
        #expect(result.browserStep == .skippedEphemeralSession)
    }

    @Test func noEndSessionEndpointSkipsTheStep() async throws {
        let result = try await signOut(endSession: nil, postLogout: postLogout) { _, _ in URL(string: "x:/")! }
        #expect(result.browserStep == .skippedNoEndSessionEndpoint)
    }

    @Test func aClosedPageLeavesTheSignOutComplete() async throws {
        let result = try await signOut(endSession: endSession, postLogout: postLogout) { _, _ in
            throw AuthFlowError(.cancelled, "the user closed the browser session")
        }
        #expect(result.browserStep == .closedByUser)
        #expect(result.browserFailure == nil)
    }

    /// The browser step through the Apple layer's session runner, the
    /// system's answer given by the stand-in.
    func signOutThroughTheSheet(_ script: ScriptedWebAuthenticationSession.Script) async throws -> AppleSignOutResult {
        try await signOut(endSession: endSession, postLogout: URL(string: "https://app.example.com/signed-out")!) { _, match in
            try await Self.sheet(match, script)
        }
    }

    @MainActor
    static func sheet(_ callback: CallbackMatch, _ script: ScriptedWebAuthenticationSession.Script) async throws -> URL {
        try await runWebAuthentication(
            callback: callback, gate: WebAuthenticationGate(),
            makeSession: { ScriptedWebAuthenticationSession(script, completion: $0) })
    }

    @Test func aSheetTheSystemRefusesForAMissingAssociationIsAFailureNotAClose() async throws {
        let refusal = ScriptedWebAuthenticationSession.SystemError.webCredentialsMissing(host: "app.example.com")
        let result = try await signOutThroughTheSheet(.failure(refusal))
        #expect(result.browserStep == .failed)
        #expect(result.browserFailure?.category == .configuration)
        #expect(result.browserFailure?.remedy == .checkTheWebCredentialsAssociation.with("app.example.com"))
    }

    @Test func aSheetTheUserClosesIsClosedByUser() async throws {
        let result = try await signOutThroughTheSheet(.failure(ScriptedWebAuthenticationSession.SystemError.canceledLogin()))
        #expect(result.browserStep == .closedByUser)
        #expect(result.browserFailure == nil)
    }

    @Test func aFailingPageIsReportedBesideACompletedSignOutNotThrown() async throws {
        let failure = AuthFlowError(.configuration, "the browser session has no window to present from")
        let result = try await signOut(endSession: endSession, postLogout: postLogout) { _, _ in throw failure }
        #expect(result.browserStep == .failed)
        #expect(result.browserFailure == failure)
    }

    @Test func aKeyHandleThatCannotBeDeletedIsReportedNotThrown() async throws {
        let locked = KeychainStatus.interactionNotAllowed.error(operation: "delete", item: "AuthFlow")
        let result = try await signOut(
            endSession: nil, postLogout: nil, deleteHandle: { throw locked }, present: { _, _ in URL(string: "x:/")! })
        #expect(result.keyHandleFailure == locked)
    }

    @Test func aLocalSignOutThatFailsIsThrownAndNothingElseRuns() async throws {
        let locked = KeychainStatus.interactionNotAllowed.error(operation: "delete", item: "AuthFlow")
        await #expect(throws: locked) {
            try await AppleSignOutSteps.run(
                postLogoutRedirectURI: postLogout, prefersEphemeralSession: false,
                localSignOut: { throw locked },
                deleteKeyHandle: { Issue.record("handle deleted after a failed sign-out") },
                present: { _, _ in
                    Issue.record("sheet opened after a failed sign-out")
                    return URL(string: "x:/")!
                })
        }
    }
}
