#if CLI
import Foundation
import Testing
@testable import authflow

@Suite("Loopback means an IP literal; credential paths compare normalised")
struct LoopbackAddressTests {
    @Test("127.0.0.0/8 and ::1 literals are loopback, in brackets or not")
    func literals() {
        for host in ["127.0.0.1", "127.255.255.254", "127.0.0.0", "127.1.2.3", "::1", "[::1]", "0:0:0:0:0:0:0:1", "[::0:1]"] {
            #expect(LoopbackAddress.isLiteral(host), "\(host)")
        }
    }

    @Test("a host name, a short or octal form, a mapped or scoped address is not loopback")
    func notLiterals() {
        for host in [
            "127.attacker.example", "127.0.0.1.nip.io", "localhost", "LOCALHOST", "localhost.", "127.1", "127.0.1", "0177.0.0.1",
            "127.0.0.01", "127.0.0.256", "127.0.0.1.", "128.0.0.1", "0.0.0.0", "::", "::2", "::ffff:127.0.0.1", "[::ffff:7f00:1]",
            "fe80::1%lo", "::1%lo", "[::1", "", "127.0.0.-1", "127.0.0.+1", "１２７.0.0.1",
        ] {
            #expect(!LoopbackAddress.isLiteral(host), "\(host)")
        }
    }

    @Test("credential targets: plain http only on a loopback IP literal")
    func credentialTargets() throws {
        #expect(try #require(CredentialTarget(url: "http://127.0.0.1:8080")).isLoopback)
        #expect(try #require(CredentialTarget(url: "http://[::1]:8080")).isLoopback)
        #expect(try #require(CredentialTarget(url: "http://127.9.9.9")).isLoopback)
        #expect(try !#require(CredentialTarget(url: "http://127.attacker.example")).isLoopback)
        #expect(try !#require(CredentialTarget(url: "http://localhost:8080")).isLoopback)
    }

    @Test("paths are normalised: dot segments resolved, unreserved escapes decoded, others uppercased")
    func normalisedPaths() {
        let cases: [(String, String)] = [
            ("team/../other", "other"), ("/team/./repo.git/", "team/repo.git"), ("team/%2e%2E/other", "other"),
            ("team//repo", "team/repo"), ("../../etc", "etc"), ("%74eam", "team"), ("a%2fb", "a%2Fb"), ("a%zz", "a%zz"),
            ("a/%", "a/%"), ("x/..", ""), ("%7Euser", "~user"),
        ]
        for (path, normalised) in cases { #expect(CredentialTarget.normalisedPath(path) == normalised, "\(path)") }
    }

    @Test("the pattern team serves its normalised paths only; a hidden separator is served by a whole-host pattern only")
    func patterns() throws {
        let team = try #require(CredentialTarget(url: "https://forge.example.com/team"))
        let host = try #require(CredentialTarget(url: "https://forge.example.com"))
        func target(_ path: String) throws -> CredentialTarget {
            try #require(CredentialTarget(scheme: "https", hostAndPort: "forge.example.com", path: path))
        }
        for path in ["team/../other", "team/%2e%2e/other", "team/..%2Fother", "team/..%5cother", "team/..\\other", "teamx", "other"] {
            #expect(!team.serves(try target(path)), "\(path)")
            #expect(host.serves(try target(path)), "\(path)")
        }
        for path in ["team", "team/repo.git", "team/./repo.git", "team/x/../repo.git", "%74eam/repo.git"] {
            #expect(team.serves(try target(path)), "\(path)")
        }
        // A pattern is normalised too.
        let odd = try #require(CredentialTarget(url: "https://forge.example.com/team/sub/.."))
        #expect(odd.text == "https://forge.example.com/team")
    }
}
#endif
