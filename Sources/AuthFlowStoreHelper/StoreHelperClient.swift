package import AuthFlow
import AuthFlowLoopback

#if canImport(Glibc) || canImport(Musl) || os(macOS) // ChildProcess's platforms
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `authflow`'s side: a ``CredentialStore`` kept by a helper program that
/// `authflow` starts and talks to over two pipes (``LineChannel``).
///
/// The PostgreSQL store lives in the helper `authflow-postgresql`, so that
/// `authflow` itself links no PostgreSQL client: PostgresNIO links all of
/// swift-corelibs-foundation and ICU's data, which doubles the size of a
/// static Linux binary (docs/performance.md, "Size"). Git keeps its HTTP
/// transports out of `git` the same way.
///
/// The helper ends when its standard input closes: after ``close()``, or
/// when `authflow` exits or dies. A lock held then is released with the
/// helper's database connection.
package final class StoreHelperClient: CredentialStore {
    private let channel: LineChannel
    private let child: ChildProcess
    private let name: String

    /// Starts `executable` and sends it `configuration` as its first line.
    ///
    /// - Throws: ``AuthFlowError/Category/configuration`` when the helper is
    ///   not found or does not start; the helper's own error when it cannot
    ///   open the store.
    package init(executable: String, name: String, configuration: some Encodable & Sendable) async throws {
        self.name = name
        // A helper that died must not kill `authflow` with SIGPIPE on the next write.
        signal(SIGPIPE, SIG_IGN)
        do {
            child = try ChildProcess.spawn([executable], input: .pipe, output: .pipe, error: .inherit)
        } catch {
            throw AuthFlowError(
                .configuration, "cannot start \(name) (\(executable)): \(String(cString: strerror(error.code)))",
                recovery: Self.installHint(name))
        }
        channel = LineChannel(input: child.output!, output: child.input!)
        let answer: StoreHelperReply
        do {
            answer = try await channel.exchange(configuration, expecting: StoreHelperReply.self)
        } catch {
            close()
            throw Self.lost(name, error)
        }
        if let failure = answer.error {
            close()
            throw failure.error
        }
    }

    /// Closes the helper's input, which ends it, and reaps it.
    package func close() {
        if let input = child.input { closeDescriptor(input) }
        child.whenExited { _ in
            if let output = self.child.output { closeDescriptor(output) }
        }
    }

    /// Connects once, now, so that a refused connection or a server without
    /// TLS is an error with its cause before a browser opens.
    package func probe() async throws { _ = try await send(StoreHelperRequest(.probe)) }

    package func load() async throws -> SessionRecord? { try await send(StoreHelperRequest(.load)).record }
    package func save(_ record: SessionRecord) async throws { _ = try await send(StoreHelperRequest(.save, record: record)) }
    package func delete() async throws { _ = try await send(StoreHelperRequest(.delete)) }
    package func refreshWillStart() async throws { _ = try await send(StoreHelperRequest(.refreshWillStart)) }

    package func withExclusiveAccess<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        _ = try await send(StoreHelperRequest(.lock))
        let result: T
        do {
            result = try await body()
        } catch {
            _ = try? await send(StoreHelperRequest(.unlock, failed: true))
            throw error
        }
        _ = try await send(StoreHelperRequest(.unlock))
        return result
    }

    private func send(_ request: StoreHelperRequest) async throws -> StoreHelperReply {
        let answer: StoreHelperReply
        do {
            answer = try await channel.exchange(request, expecting: StoreHelperReply.self)
        } catch {
            throw Self.lost(name, error)
        }
        if let failure = answer.error { throw failure.error }
        return answer
    }

    private static func lost(_ name: String, _ failure: LineChannel.Failure) -> AuthFlowError {
        switch failure {
        case .ended: AuthFlowError(.storage, "\(name) ended before it answered")
        case .malformed: AuthFlowError(.storage, "\(name) answered what authflow cannot read")
        case .system(let code): AuthFlowError(.storage, "the pipe to \(name) failed: \(String(cString: strerror(code)))")
        }
    }

    private static func installHint(_ name: String) -> String {
        "Install \(name) beside authflow (the \(name) package, or the release archive's libexec/authflow), or build it: swift build --traits CLI --product \(name)."
    }
}

/// `close(2)`, which the method ``StoreHelperClient/close()`` hides.
private func closeDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}
#endif
