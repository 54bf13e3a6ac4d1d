#if CLI
import ArgumentParser
import AuthFlow
import AuthFlowTestSupport
import Foundation
import AuthFlowStoreHelper
import Testing
@testable import authflow

/// The CLI's own decisions behind the hardening items, one rule each: the
/// PostgreSQL store's TLS default, where `request` may step up, and which
/// command lines ask for JSON.
@Suite("CLI hardening rules")
struct CLIHardeningRuleTests {
    @Test("PostgreSQL: TLS required by default, prefer only on a loopback IP literal, an explicit sslmode kept")
    func postgresTLSDefault() throws {
        func tls(_ url: String) throws -> PostgresStoreAddress.TLSMode { try PostgresStoreAddress(url, source: "--store").tls }
        #expect(try tls("postgresql://u@db.example.com/app") == .require)
        #expect(try tls("postgresql://u@localhost/app") == .require)
        #expect(try tls("postgresql://u@127.attacker.example:5432/app") == .require)
        #expect(try tls("postgresql://u@10.0.0.5/app") == .require)
        #expect(try tls("postgresql://u@127.0.0.1:5432/app") == .prefer)
        #expect(try tls("postgresql://u@[::1]:5432/app") == .prefer)
        #expect(try tls("postgresql://u@db.example.com/app?sslmode=prefer") == .prefer)
        #expect(try tls("postgresql://u@db.example.com/app?sslmode=disable") == .disable)
        #expect(try tls("postgresql://u@127.0.0.1/app?sslmode=require") == .require)
    }

    @Test("request steps up only at the origin of the profile's resource; never for a plain profile")
    func stepUpOrigin() throws {
        var plain = try ProfileResourceTests.profile()
        plain.resource = nil
        let bound = try ProfileResourceTests.profile()
        for url in ["https://api.example.com/mcp", "https://evil.example/mcp", "http://127.0.0.1:8080/api"] {
            #expect(!Request.stepsUp(plain, for: URL(string: url)!), "\(url)")
        }
        #expect(Request.stepsUp(bound, for: URL(string: "https://api.example.com/mcp")!))
        #expect(Request.stepsUp(bound, for: URL(string: "https://API.example.com:443/other")!))
        #expect(!Request.stepsUp(bound, for: URL(string: "https://api.example.com.evil.example/mcp")!))
        #expect(!Request.stepsUp(bound, for: URL(string: "http://api.example.com/mcp")!))
        #expect(!Request.stepsUp(bound, for: URL(string: "https://api.example.com:8443/mcp")!))
    }

    @Test("--json is read from the raw arguments, up to a --")
    func asksForJSON() {
        #expect(Output.asksForJSON(["login", "--client-id", "--json"]))
        #expect(Output.asksForJSON(["status", "--json"]))
        #expect(!Output.asksForJSON(["login", "--client-id", "x"]))
        #expect(!Output.asksForJSON(["request", "--", "--json"]))
        #expect(!Output.asksForJSON(["login", "--json=yes"]))
    }

    @Test("a usage error found at run time exits 2")
    func runTimeUsageError() {
        #expect(Output.fail(ValidationError("--tenant applies only to a multi-tenant issuer"), json: false).rawValue == 2)
    }
}
#endif
