#if CLI
import ArgumentParser
import Foundation
import Testing
@testable import authflow

@Suite("ProfileLocation")
struct ProfileLocationTests {
    @Test("XDG_CONFIG_HOME when absolute, else ~/.config; NAME.json under authflow/")
    func location() throws {
        #expect(ProfileLocation.url(for: "work", configHome: "/srv/config")?.path == "/srv/config/authflow/work.json")
        let home = FileManager.default.homeDirectoryForCurrentUser.path
        for configHome in [nil, "", "relative/config"] {
            let path = try #require(ProfileLocation.url(for: "default", configHome: configHome)?.path)
            #expect(path == URL(fileURLWithPath: home).appendingPathComponent(".config/authflow/default.json").path)
        }
    }

    @Test("names: letters, digits, '.', '_', '-', 1 to 64, not starting with '.'")
    func names() {
        for good in ["default", "a", "Work_2.prod-eu", String(repeating: "x", count: 64), "a..b"] {
            #expect(ProfileLocation.isValidName(good), "\(good)")
            #expect(ProfileLocation.url(for: good, configHome: "/c") != nil)
        }
        for bad in ["", ".hidden", "..", "../x", "a/b", "a b", "é", "a\u{0}", String(repeating: "x", count: 65), "a\nb", "~x"] {
            #expect(!ProfileLocation.isValidName(bad), "\(bad)")
            #expect(ProfileLocation.url(for: bad, configHome: "/c") == nil)
        }
    }
}

@Suite("Token command line")
struct TokenCommandLineTests {
    @Test("`token` is parsed by its own command; anything it refuses is parsed from the root")
    func parsing() throws {
        let token = try #require(try Authflow.parseCommand(["token", "--profile", "work", "--min-ttl", "30"]) as? Token)
        #expect(token.profileOption.profile == "work" && token.minTTL == 30 && !token.force)
        #expect(try Authflow.parseCommand(["status"]) is Status)
        // The common forms come from `Token.commonForm`, the same value the parser makes.
        let common = try #require(try Authflow.parseCommand(["token", "--profile", "work"]) as? Token)
        #expect(String(reflecting: common) == String(reflecting: try Token.parse(["--profile", "work"])))
        for refused in [
            ["token", "--force", "--min-ttl", "1"], ["token", "--bogus"], ["token", "--min-ttl", "-1"], ["token", "extra"],
            ["token", "--timeout", "0"],
        ] {
            #expect(throws: (any Error).self, "\(refused)") { try Authflow.parseCommand(refused) }
        }
    }

    /// The common forms skip the parser: each property must hold what the
    /// parser gives it. `String(reflecting:)` prints every stored property,
    /// with each option's parsed value, or its definition where none was set.
    @Test("`token` and `token --profile NAME` without the parser: the parser's values, every property")
    func commonForm() throws {
        for arguments in [[], ["--profile", "work"]] {
            let fast = try #require(Token.commonForm(arguments), "\(arguments)")
            let parsed = try Token.parse(arguments)
            #expect(String(reflecting: fast) == String(reflecting: parsed), "\(arguments)")
            #expect(!String(reflecting: fast).contains("definition"), "\(arguments): every property has a value")
        }
        #expect(Token.commonForm(["--profile", "work"])?.profileOption.profile == "work")
        // Every other form goes to the parser, which reads it or reports it.
        for other in [
            ["--profile"], ["--profile", "--force"], ["--force"], ["--profile=work"], ["--profile", "work", "-v"], ["extra"], ["--help"],
            ["--generate-completion-script", "bash"],
        ] {
            #expect(Token.commonForm(other) == nil, "\(other)")
        }
    }
}
#endif
