import AuthFlow
import Foundation
import Testing

@testable import AuthFlowApple

@MainActor
@Suite struct WebAuthenticationRunTests {
    let scheme = CallbackMatch.customScheme("com.example.app")
    let https = CallbackMatch.https(host: "app.example.com", path: "/callback")
    let callbackURL = URL(string: "com.example.app:/oauth2redirect?code=c&state=s")!
    typealias SystemError = ScriptedWebAuthenticationSession.SystemError

    /// Runs a session on `script`, keeping the stand-in for inspection.
    final class Run {
        var session: ScriptedWebAuthenticationSession?
    }

    func run(
        _ script: ScriptedWebAuthenticationSession.Script, callback: CallbackMatch? = nil, record: Run = Run(),
        gate: WebAuthenticationGate = WebAuthenticationGate()
    ) async throws -> URL {
        try await runWebAuthentication(
            callback: callback ?? scheme, gate: gate,
            makeSession: { completion in
                let session = ScriptedWebAuthenticationSession(script, completion: completion)
                record.session = session
                return session
            })
    }

    func error(_ body: () async throws -> URL) async -> AuthFlowError? {
        do {
            _ = try await body()
            return nil
        } catch {
            return error as? AuthFlowError
        }
    }

    @Test func theCallbackIsTheAnswer() async throws {
        #expect(try await run(.callback(callbackURL)) == callbackURL)
    }

    @Test func aHandlerCalledTwiceResumesOnceWithTheFirstURL() async throws {
        let second = URL(string: "com.example.app:/oauth2redirect?code=other")!
        #expect(try await run(.callbackTwice(callbackURL, second)) == callbackURL)
    }

    @Test func theUserClosingTheSheetIsCancelledKeepingTheSystemError() async throws {
        let error = try #require(await error { try await run(.failure(SystemError.canceledLogin()), callback: https) })
        #expect(error.category == .cancelled)
        #expect(error.message == "the user closed the browser session")
        let system = try #require(error.underlyingError as? NSError)
        #expect(system.domain == SystemError.domain && system.code == 1)
    }

    @Test func canceledLoginWithAFailureReasonIsAConfigurationErrorNamingTheAssociation() async throws {
        let refusal = SystemError.webCredentialsMissing(host: "app.example.com")
        let error = try #require(await error { try await run(.failure(refusal), callback: https) })
        #expect(error.category == .configuration)
        #expect(error.remedy == .checkTheWebCredentialsAssociation.with("app.example.com"))
        #expect(error.message.hasPrefix("the system refused the browser session: Application with identifier"))
        #expect(error.recovery?.contains("webcredentials:app.example.com") == true)
        #expect((error.underlyingError as? NSError)?.userInfo.isEmpty == false)
    }

    @Test func canceledLoginWithAReasonOnACustomSchemeIsConfigurationToo() async throws {
        let refusal = NSError(domain: SystemError.domain, code: 1, userInfo: [NSLocalizedDescriptionKey: "refused"])
        let error = try #require(await error { try await run(.failure(refusal)) })
        #expect(error.category == .configuration)
        #expect(error.message == "the system refused the browser session: refused")
        #expect(error.remedy == nil)
        #expect(error.recovery?.contains("com.example.app") == true)
    }

    @Test func anInvalidPresentationContextIsTransientNotConfiguration() async throws {
        let error = try #require(await error { try await run(.startFails(reportsError: SystemError.presentationContextInvalid())) })
        #expect(error.category == .timeout)
        #expect(error.remedy == .presentWhenTheSceneIsActive)
        #expect((error.underlyingError as? NSError)?.code == 3)
    }

    @Test(.timeLimit(.minutes(1)))
    func aSecondSessionWhileOneIsOnScreenIsAlreadyInProgressAndTheFirstGoesOn() async throws {
        let gate = WebAuthenticationGate()
        let first = Run()
        let task = Task { try await run(.waitForCancel(callsBackAfterCancel: true), record: first, gate: gate) }
        while first.session?.startCount != 1 { await Task.yield() }
        let second = Run()
        let error = try #require(await error { try await run(.callback(callbackURL), record: second, gate: gate) })
        #expect(error == WebAuthenticationErrors.alreadyInProgress)
        #expect(error.message == "a sign-in is already in progress")
        #expect(error.remedy == .waitForTheSignInInProgress)
        #expect(second.session == nil)
        #expect(first.session?.cancelCount == 0)
        task.cancel()
        _ = await self.error { try await task.value }
        #expect(try await run(.callback(callbackURL), gate: gate) == callbackURL)
    }

    @Test(.timeLimit(.minutes(1)))
    func taskCancellationAnswersCancelledAtOnceWhenTheSessionNeverCallsBack() async throws {
        let record = Run()
        let task = Task { try await run(.waitForCancel(callsBackAfterCancel: false), record: record) }
        while record.session?.startCount != 1 { await Task.yield() }
        task.cancel()
        let error = try #require(await error { try await task.value })
        #expect(error.category == .cancelled)
        #expect(error.message == "the sign-in task was cancelled")
        while record.session?.cancelCount != 1 { await Task.yield() }
    }

    @Test(.timeLimit(.minutes(1)))
    func aLateHandlerAfterCancelIsIgnored() async throws {
        let record = Run()
        let task = Task { try await run(.waitForCancel(callsBackAfterCancel: true), record: record) }
        while record.session?.startCount != 1 { await Task.yield() }
        task.cancel()
        let error = try #require(await error { try await task.value })
        #expect(error.message == "the sign-in task was cancelled")
        while record.session?.cancelCount != 1 { await Task.yield() }
    }

    @Test func aTaskCancelledBeforeStartNeverOpensTheBrowser() async throws {
        let record = Run()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await run(.callback(callbackURL), record: record)
        }
        let error = try #require(await error { try await task.value })
        #expect(error.category == .cancelled)
        #expect(record.session == nil)
    }

    @Test func startReturningFalseIsAConfigurationErrorNamingTheAnchor() async throws {
        let error = try #require(await error { try await run(.startFails(reportsError: nil)) })
        #expect(error.category == .configuration)
        #expect(error.recovery?.contains("presentation anchor") == true)
    }

    @Test func canStartFalseIsAConfigurationErrorAndStartIsNotCalled() async throws {
        let record = Run()
        let error = try #require(await error { try await run(.cannotStart, record: record) })
        #expect(error.category == .configuration)
        #expect(record.session?.startCount == 0)
    }

    @Test func aMissingPresentationContextIsConfigurationOnceKeepingTheSystemError() async throws {
        let error = try #require(
            await error {
                try await run(.startFails(reportsError: SystemError.presentationContextNotProvided()))
            })
        #expect(error.category == .configuration)
        #expect((error.underlyingError as? NSError)?.code == 2)
        #expect(error.recovery?.contains("presentation anchor") == true)
    }

    @Test func anHTTPSSessionTheSystemRefusesNamesTheAssociation() async throws {
        let refused = ScriptedWebAuthenticationSession.Refused(code: 42)
        let error = try #require(await error { try await run(.failure(refused), callback: https) })
        #expect(error.category == .configuration)
        #expect(error.underlyingError as? ScriptedWebAuthenticationSession.Refused == refused)
        #expect(error.recovery?.contains("webcredentials:app.example.com") == true)
        #expect(error.recovery?.contains("apple-app-site-association") == true)
    }

    @Test func aHandlerWithNeitherURLNorErrorIsNotCancelled() async throws {
        final class Empty: WebAuthenticationDriver {
            let completion: @Sendable (URL?, (any Error)?) -> Void
            init(_ completion: @escaping @Sendable (URL?, (any Error)?) -> Void) { self.completion = completion }
            var canStart: Bool { true }
            func start() -> Bool {
                completion(nil, nil)
                return true
            }
            func cancel() {}
        }
        let error = try #require(
            await error {
                try await runWebAuthentication(callback: scheme, gate: WebAuthenticationGate(), makeSession: { Empty($0) })
            })
        #expect(error.category == .configuration)
    }

    @Test func aCancelledAsyncSessionIsCancelledNotConfiguration() {
        let error = WebAuthenticationErrors.error(.other(CancellationError()), callback: scheme)
        #expect(error.category == .cancelled)
    }
}
