#if CLI
import AuthFlow
import AuthFlowTestSupport
import Foundation
import Testing
@testable import authflow
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A profile's DPoP state: the token type is compared case-insensitively,
/// and a profile never keeps a DPoP key its tokens are not bound to.
@Suite("Profile DPoP")
struct ProfileDPoPTests {
    /// One `XDG_CONFIG_HOME` for this process's profiles (each test uses its own profile name).
    static let configHome: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("authflow-cli-home-\(UUID().uuidString)").path
        setenv("XDG_CONFIG_HOME", path, 1)
        return path
    }()

    static func profile(_ name: String, tokenType: String?) throws -> Profile {
        _ = configHome
        let metadata = ProviderMetadata(
            issuer: "https://id.example", authorizationEndpoint: URL(string: "https://id.example/authorize")!,
            tokenEndpoint: URL(string: "https://id.example/token")!)
        let credentials = try tokenType.map { type in
            var token = try TokenResponse(
                json: Data(#"{"access_token":"AT","token_type":"DPoP","expires_in":3600}"#.utf8),
                requestedScopes: [], allowDPoP: true)
            token.tokenType = type
            return OAuthCredentials(issuer: "https://id.example", clientID: "app", token: token, idToken: nil)
        }
        var profile = Profile(
            name: name, metadata: metadata, clientID: "app", clientAuthentication: "none", clientSecret: nil,
            clientSecretEnv: nil, scopes: [], parameters: [], port: 0, device: false, credentials: credentials)
        profile.dpopKey = DPoPKey()
        profile.dpop = true
        return profile
    }

    @Test("a stored token type of DPoP in any case is DPoP-bound", arguments: ["DPoP", "dpop", "DPOP", "dPoP"])
    func caseInsensitive(type: String) throws {
        #expect(try Self.profile("p", tokenType: type).holdsDPoPToken)
    }

    @Test("Bearer or no credentials is not DPoP-bound", arguments: ["Bearer", "bearer", "DPoP-ish", nil] as [String?])
    func notBound(type: String?) throws {
        #expect(try !Self.profile("p", tokenType: type).holdsDPoPToken)
    }

    @Test("saving keeps the key of DPoP-bound tokens (any case) and drops it otherwise; the --dpop setting stays")
    func keyFollowsTheTokens() throws {
        for (index, type) in ["dpop", "Bearer", nil].enumerated() {
            let name = "dpop-\(index)"
            try Self.profile(name, tokenType: type).save()
            let loaded = try Profile.load(name)
            #expect((loaded.dpopKey != nil) == (type != nil && type != "Bearer"), "\(type ?? "signed out")")
            #expect(loaded.dpop)
        }
    }

    @Test("a profile written before the dpop and par settings: a DPoP key means --dpop")
    func olderProfiles() throws {
        var profile = try Self.profile("older", tokenType: "DPoP")
        try profile.save()
        let url = try Profile.url(for: "older")
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        object["dpop"] = nil
        object["par"] = nil
        try JSONSerialization.data(withJSONObject: object).write(to: url)
        #expect(chmod(url.path, 0o600) == 0)
        profile = try Profile.load("older")
        #expect(profile.dpop && !profile.par)
    }
}
#endif
