#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowTestSupport
import Foundation
import Testing
@testable import AuthFlowProvider

/// Every identifier the provider generates is safe as a command-line
/// argument: none begins with `-`, which `authflow login --client-id ID`
/// (and any other parser) would read as an option. Without the rule one draw
/// in 64 begins with `-`; the draw counts below make a pass without it less
/// likely than one in a thousand.
@Suite("Generated identifiers never begin with a dash")
struct GeneratedIdentifierTests {
    @Test("10,000 random tokens of each length the provider uses: none begins with '-', all base64url of the right length")
    func randomTokensNeverBeginWithADash() {
        for bytes in [6, 12, 16, 24, 32] {
            let tokens = (0..<10_000).map { _ in RandomToken.make(bytes: bytes) }
            #expect(tokens.filter { $0.hasPrefix("-") }.isEmpty, "\(bytes) bytes")
            #expect(Set(tokens.map(\.utf8.count)) == [(bytes * 4 + 2) / 3])
            #expect(Set(tokens).count == tokens.count)
        }
        // The rule is about the first character only: '-' elsewhere and a leading '_' stay.
        let tokens = (0..<2_000).map { _ in RandomToken.make(bytes: 16) }
        #expect(tokens.contains { $0.dropFirst().contains("-") })
        #expect(tokens.contains { $0.hasPrefix("_") })
        #expect(RandomToken.startsWithOptionDash("-m189v0mfR7A5n8dwNIljA"))
        #expect(!RandomToken.startsWithOptionDash("_m189v0mfR7A5n8dwNIljA"))
    }

    @Test("600 clients registered over HTTP (RFC 7591): no client_id and no client_secret begins with '-'")
    func registeredClientIDsNeverBeginWithADash() async throws {
        try await Fixture.with { provider in
            var ids: [String] = []
            var secrets: [String] = []
            for index in 0..<600 {
                let confidential = index.isMultiple(of: 2)
                let json = """
                    {"redirect_uris":["http://127.0.0.1/callback"],"client_name":"c\(index)",\
                    "token_endpoint_auth_method":"\(confidential ? "client_secret_basic" : "none")"}
                    """
                let (status, body) = try await RegistrationTests.register(provider, json)
                #expect(status == 201)
                guard case .string(let id)? = body["client_id"] else {
                    Issue.record("no client_id in \(body.keys.sorted())")
                    return
                }
                ids.append(id)
                if confidential, case .string(let secret)? = body["client_secret"] { secrets.append(secret) }
            }
            #expect(ids.count == 600 && secrets.count == 300)
            #expect(ids.filter { $0.hasPrefix("-") } == [])
            #expect(secrets.filter { $0.hasPrefix("-") }.count == 0)
        }
    }
}
#endif
