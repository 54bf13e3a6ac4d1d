#if CLI
import AuthFlow
import AuthFlowTestSupport
import Foundation
import Logging
import Testing
@testable import authflow

/// A profile signed in with `login --resource` keeps the resource and the
/// registration; a profile written before them still reads.
@Suite("Profile resource")
struct ProfileResourceTests {
    static func profile() throws -> Profile {
        var profile = Profile(
            name: "api",
            metadata: ProviderMetadata(
                issuer: "https://as.example", authorizationEndpoint: URL(string: "https://as.example/authorize")!,
                tokenEndpoint: URL(string: "https://as.example/token")!),
            clientID: "dyn-1", clientAuthentication: "none", clientSecret: nil, clientSecretEnv: nil, scopes: ["read"], parameters: [],
            port: 0, device: false, credentials: nil)
        profile.resource = try ResourceIdentifier(URL(string: "https://api.example.com/mcp")!)
        profile.registration = ClientRegistration(
            issuer: "https://as.example", clientID: "dyn-1", redirectURIs: [URL(string: "http://127.0.0.1/callback")!])
        return profile
    }

    @Test("the resource and the registration survive the file and reach the client")
    func roundTrip() throws {
        let profile = try Self.profile()
        let read = try VersionedFile.decode(
            Profile.self, from: try VersionedFile.encode(profile), current: Profile.currentVersion, path: "api")
        #expect(read.resource == profile.resource)
        #expect(read.registration == profile.registration)
        let client = try read.client(timeout: 5, logger: Logger(label: "test"))
        #expect(client.resource == profile.resource)
        #expect(client.registration == profile.registration)
    }

    @Test("a profile written before --resource reads without them")
    func olderProfile() throws {
        var object = try #require(
            try JSONSerialization.jsonObject(with: VersionedFile.encode(try Self.profile())) as? [String: Any])
        object["resource"] = nil
        object["registration"] = nil
        let read = try VersionedFile.decode(
            Profile.self, from: try JSONSerialization.data(withJSONObject: object), current: Profile.currentVersion, path: "api")
        #expect(read.resource == nil)
        #expect(read.registration == nil)
        #expect(read.clientID == "dyn-1")
    }
}
#endif
