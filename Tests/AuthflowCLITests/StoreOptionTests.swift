#if CLI
import ArgumentParser
import Testing
@testable import authflow

/// How `--store` and `AUTHFLOW_STORE` name the stores.
@Suite("--store")
struct StoreOptionTests {
    static func kind(_ arguments: [String], _ environment: [String: String] = [:]) throws -> StoreKind {
        try StoreOption.parse(arguments).kind(environment: environment)
    }

    @Test("file, secret-service and postgresql:// by flag or variable; the flag wins; nothing named is automatic")
    func names() throws {
        guard case .automatic = try Self.kind([]) else {
            Issue.record("no store named is not automatic")
            return
        }
        guard case .automatic = try Self.kind([], ["AUTHFLOW_STORE": ""]) else {
            Issue.record("an empty variable names nothing")
            return
        }
        guard case .file = try Self.kind(["--store", "file"]) else {
            Issue.record("--store file")
            return
        }
        guard case .file = try Self.kind([], ["AUTHFLOW_STORE": "file"]) else {
            Issue.record("AUTHFLOW_STORE=file")
            return
        }
        guard case .secretService = try Self.kind(["--store", "secret-service"]) else {
            Issue.record("--store secret-service")
            return
        }
        guard case .secretService = try Self.kind([], ["AUTHFLOW_STORE": "secret-service"]) else {
            Issue.record("AUTHFLOW_STORE=secret-service")
            return
        }
        guard case .file = try Self.kind(["--store", "file"], ["AUTHFLOW_STORE": "secret-service"]) else {
            Issue.record("the flag wins over the variable")
            return
        }
        guard case .postgresql = try Self.kind([], ["AUTHFLOW_STORE": "postgresql://u@h/db"]) else {
            Issue.record("postgresql")
            return
        }
    }

    @Test("an unknown store is a usage error naming the three")
    func unknown() {
        #expect(throws: (any Error).self) { try Self.kind(["--store", "keychain"]) }
        do {
            _ = try Self.kind([], ["AUTHFLOW_STORE": "keyring"])
            Issue.record("keyring was taken")
        } catch let error as ValidationError {
            #expect(error.message == "AUTHFLOW_STORE takes file, secret-service or a postgresql:// URL")
        } catch {
            Issue.record("not a usage error: \(error)")
        }
    }
}
#endif
