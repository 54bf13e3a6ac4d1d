#if canImport(Glibc)
import AuthFlow
import Foundation
import Glibc
import Testing

@testable import AuthFlowStoreHelper

/// The protocol between `authflow` and its store helper, both ends over
/// real pipes; the PostgreSQL helper itself is run by the interop tests
/// (Tests/Interop/test_postgres_store.py).
@Suite struct StoreHelperTests {
    /// A store that records what ran inside its lock.
    actor RecordingStore: CredentialStore {
        @TaskLocal static var locked = false
        var events: [String] = []
        var record: SessionRecord?
        var refuseLock = false

        func refusingLocks() { refuseLock = true }
        func load() async throws -> SessionRecord? {
            events.append("load\(Self.locked ? " locked" : "")")
            return record
        }
        func save(_ record: SessionRecord) async throws {
            events.append("save\(Self.locked ? " locked" : "")")
            self.record = record
        }
        func delete() async throws { events.append("delete") }
        func refreshWillStart() async throws { events.append("refreshWillStart\(Self.locked ? " locked" : "")") }
        nonisolated func withExclusiveAccess<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
            if await refuseLock {
                throw AuthFlowError(.storage, "the lock was not granted in time", reason: .init(rawValue: "lock_timeout"))
            }
            await note("lock")
            do {
                let result = try await Self.$locked.withValue(true) { try await body() }
                await note("unlock")
                return result
            } catch {
                await note("body threw")
                throw error
            }
        }
        private func note(_ event: String) { events.append(event) }
    }

    /// Two pipes: the server reads `requests` and writes `replies`.
    struct Wire {
        let server: LineChannel
        let client: LineChannel
        let clientWriteEnd: Int32

        init() {
            var requests: [Int32] = [-1, -1]
            var replies: [Int32] = [-1, -1]
            _ = pipe(&requests)
            _ = pipe(&replies)
            server = LineChannel(input: requests[0], output: replies[1])
            client = LineChannel(input: replies[0], output: requests[1])
            clientWriteEnd = requests[1]
        }
    }

    private func ask(_ wire: Wire, _ request: StoreHelperRequest) async throws -> StoreHelperReply {
        try await wire.client.exchange(request, expecting: StoreHelperReply.self)
    }

    @Test func requestsInsideTheLockRunInsideTheStoresLock() async throws {
        let store = RecordingStore()
        let wire = Wire()
        let serving = Task { await StoreHelperServer(store: store, channel: wire.server, probe: {}, abandon: {}).run() }
        #expect(try await ask(wire, StoreHelperRequest(.load)).error == nil)
        #expect(try await ask(wire, StoreHelperRequest(.lock)).error == nil)
        #expect(try await ask(wire, StoreHelperRequest(.load)).error == nil)
        #expect(try await ask(wire, StoreHelperRequest(.refreshWillStart)).error == nil)
        #expect(try await ask(wire, StoreHelperRequest(.save, record: Self.record)).error == nil)
        #expect(try await ask(wire, StoreHelperRequest(.unlock)).error == nil)
        #expect(try await ask(wire, StoreHelperRequest(.load)).record == Self.record)
        close(wire.clientWriteEnd)
        await serving.value
        #expect(
            await store.events == ["load", "lock", "load locked", "refreshWillStart locked", "save locked", "unlock", "load"])
    }

    /// `authflow` died (or closed the pipe) while holding the lock: the
    /// helper abandons everything at once (it exits there), before the store
    /// could clear the refresh it recorded in flight.
    @Test func theInputEndingInsideTheLockAbandons() async throws {
        let store = RecordingStore()
        let wire = Wire()
        let abandoned = LockedValue<[String]>([])
        let serving = Task {
            await StoreHelperServer(
                store: store, channel: wire.server, probe: {},
                abandon: { abandoned.withLock { $0.append("abandoned") } }
            ).run()
        }
        #expect(try await ask(wire, StoreHelperRequest(.lock)).error == nil)
        #expect(try await ask(wire, StoreHelperRequest(.refreshWillStart)).error == nil)
        close(wire.clientWriteEnd)
        await serving.value
        #expect(abandoned.withLock { $0 } == ["abandoned"])
        #expect(await store.events == ["lock", "refreshWillStart locked", "body threw"])
    }

    /// The work under the lock failed in `authflow`: the store sees its body
    /// throw, as it would in one process; the unlock itself succeeds.
    @Test func aFailedUnlockThrowsInTheBody() async throws {
        let store = RecordingStore()
        let wire = Wire()
        let serving = Task { await StoreHelperServer(store: store, channel: wire.server, probe: {}, abandon: {}).run() }
        #expect(try await ask(wire, StoreHelperRequest(.lock)).error == nil)
        #expect(try await ask(wire, StoreHelperRequest(.unlock, failed: true)).error == nil)
        #expect(try await ask(wire, StoreHelperRequest(.unlock)).error?.message == "unlock without a lock")
        close(wire.clientWriteEnd)
        await serving.value
        #expect(await store.events == ["lock", "body threw"])
    }

    @Test func aRefusedLockIsTheStoresErrorWithItsReason() async throws {
        let store = RecordingStore()
        await store.refusingLocks()
        let wire = Wire()
        let serving = Task { await StoreHelperServer(store: store, channel: wire.server, probe: {}, abandon: {}).run() }
        let failure = try #require(try await ask(wire, StoreHelperRequest(.lock)).error)
        #expect(failure.error.category == .storage)
        #expect(failure.error.reason?.rawValue == "lock_timeout")
        #expect(failure.error.message == "the lock was not granted in time")
        close(wire.clientWriteEnd)
        await serving.value
    }

    @Test func aSaveWithoutARecordIsRefused() async throws {
        let wire = Wire()
        let serving = Task { await StoreHelperServer(store: RecordingStore(), channel: wire.server, probe: {}, abandon: {}).run() }
        #expect(try await ask(wire, StoreHelperRequest(.save)).error?.category == "storage")
        close(wire.clientWriteEnd)
        await serving.value
    }

    /// An error that is no AuthFlowError crosses as its type's name alone:
    /// its description may hold a connection string or a query.
    @Test func aForeignErrorCrossesWithoutItsDescription() {
        struct Leaky: Error, CustomStringConvertible { var description: String { "postgresql://user:hunter2@db/x" } }
        let failure = StoreHelperFailure(Leaky())
        #expect(failure.category == "storage")
        #expect(!failure.message.contains("hunter2"))
        let error = StoreHelperFailure(
            AuthFlowError(.configuration, "bad key", reason: .init(rawValue: "key"), recovery: "Set AUTHFLOW_STORE_KEY."))
        #expect(error.error.category == .configuration && error.error.recovery == "Set AUTHFLOW_STORE_KEY.")
    }

    @Test func theConfigurationsDescriptionHoldsNoSecret() {
        let configuration = PostgresStoreConfiguration(
            host: "db", port: 5432, user: "u", password: "hunter2", database: "d", table: "t", tls: .require, keyID: "k",
            key: "c2VjcmV0LWtleS1ieXRlcw==", sessionID: "p")
        #expect(!"\(configuration)".contains("hunter2"))
        #expect(!"\(configuration)".contains("c2VjcmV0"))
    }

    @Test func aLineOverTheLimitOrNotJSONIsMalformed() async throws {
        let wire = Wire()
        var junk = [UInt8](repeating: UInt8(ascii: "x"), count: LineChannel.maximumLine + 20_000)
        junk.append(UInt8(ascii: "\n"))
        let writer = Task.detached {
            _ = junk.withUnsafeBytes { write(wire.clientWriteEnd, $0.baseAddress, $0.count) }
        }
        await #expect(throws: LineChannel.Failure.malformed) { try await wire.server.receive(StoreHelperRequest.self) }
        writer.cancel()
        let other = Wire()
        let text = Array("{\"operation\":\"drop table\"}\n".utf8)
        _ = text.withUnsafeBytes { write(other.clientWriteEnd, $0.baseAddress, $0.count) }
        await #expect(throws: LineChannel.Failure.malformed) { try await other.server.receive(StoreHelperRequest.self) }
    }

    /// A helper that exits without answering, or is missing.
    @Test func aHelperThatEndsOrIsMissingIsAClearError() async throws {
        let configuration = PostgresStoreConfiguration(
            host: "db", port: 5432, user: "u", password: nil, database: "d", table: "t", tls: .require, keyID: "k", key: "",
            sessionID: "p")
        await #expect {
            _ = try await StoreHelperClient(executable: "/bin/true", name: "authflow-postgresql", configuration: configuration)
        } throws: { error in
            (error as? AuthFlowError)?.category == .storage
                && (error as? AuthFlowError)?.message == "authflow-postgresql ended before it answered"
        }
        await #expect {
            _ = try await StoreHelperClient(
                executable: "/nonexistent/authflow-postgresql", name: "authflow-postgresql", configuration: configuration)
        } throws: { error in
            (error as? AuthFlowError)?.category == .configuration
                && (error as? AuthFlowError)?.message
                    == "cannot start authflow-postgresql (/nonexistent/authflow-postgresql): No such file or directory"
        }
    }

    static let record: SessionRecord = {
        let token = try! TokenResponse(
            json: Data(#"{"access_token":"AT","token_type":"Bearer","expires_in":3600,"refresh_token":"RT"}"#.utf8),
            requestedScopes: ["openid"])
        return SessionRecord(
            credentials: OAuthCredentials(issuer: try! Issuer(String("https://idp.example")), clientID: "app", token: token, idToken: nil),
            metadata: ProviderMetadata(
                issuer: try! Issuer(String("https://idp.example")), authorizationEndpoint: URL(string: "https://idp.example/authorize")!,
                tokenEndpoint: URL(string: "https://idp.example/token")!),
            clientAuthenticationMethod: .none)
    }()
}
#endif
