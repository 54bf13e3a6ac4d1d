import AuthFlow
import AuthFlowStoredDate
import Foundation
import Testing
@testable import ProfileToken

/// Profile files as `authflow-core` writes them: the engine's `VersionedFile`
/// encoding of the credentials at `credentials`, beside the other members.
enum ProfileFixture {
    struct Profile: Encodable {
        var version = 2
        var name = "default"
        var credentials: OAuthCredentials?
        var savedAt = Date()
        enum CodingKeys: String, CodingKey { case version, name, credentials, savedAt = "saved_at" }
    }

    static func credentials(tokenType: String = "Bearer", expiresIn: Int? = 3600, now: Date = Date()) throws -> OAuthCredentials {
        var body = #"{"access_token":"AT-1","token_type":"\#(tokenType)","refresh_token":"RT-1""#
        if let expiresIn { body += #","expires_in":\#(expiresIn)"# }
        let token = try TokenResponse(json: Data((body + "}").utf8), requestedScopes: ["openid"], allowDPoP: true, now: now)
        return OAuthCredentials(issuer: "https://id.example", clientID: "app", token: token, idToken: nil)
    }

    static func data(version: Int = 2, credentials: OAuthCredentials?) throws -> Data {
        try VersionedFile.encode(Profile(version: version, credentials: credentials))
    }

    /// A fresh `XDG_CONFIG_HOME` holding `authflow/NAME.json` with `data`.
    static func configHome(_ data: Data, name: String = "default") throws -> String {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("authflow-profiletoken-\(UUID().uuidString)")
        let directory = home.appendingPathComponent("authflow")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try data.write(to: directory.appendingPathComponent("\(name).json"))
        return home.path
    }
}

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

@Suite("StoredProfile")
struct StoredProfileTests {
    @Test("reads what authflow-core writes: token, type, expiry (milliseconds kept), lifetime")
    func readsStoredProfile() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000.123)
        let credentials = try ProfileFixture.credentials(now: now)
        let stored = try #require(StoredProfile.token(in: try ProfileFixture.data(credentials: credentials)))
        #expect(stored.accessToken == "AT-1")
        #expect(stored.tokenType == "Bearer")
        #expect(stored.expiresIn == 3600)
        let expiry = try #require(stored.expiresAt).timeIntervalSince1970
        #expect(abs(expiry - (1_800_000_000.123 + 3600)) < 0.0015, "milliseconds kept")
        #expect(!stored.isDPoPBound)
    }

    @Test("versions 1 and 2 are read; any other version, no version or no credentials is left to the full reader")
    func versions() throws {
        let credentials = try ProfileFixture.credentials()
        #expect(StoredProfile.token(in: try ProfileFixture.data(version: 1, credentials: credentials))?.accessToken == "AT-1")
        #expect(StoredProfile.currentVersion == 2)
        for version in [0, 3, -1, 99] {
            #expect(StoredProfile.token(in: try ProfileFixture.data(version: version, credentials: credentials)) == nil, "\(version)")
        }
        #expect(StoredProfile.token(in: try ProfileFixture.data(credentials: nil)) == nil)
    }

    @Test("malformed files are left to the full reader")
    func malformed() throws {
        let good = String(decoding: try ProfileFixture.data(credentials: try ProfileFixture.credentials()), as: UTF8.self)
        let cases = [
            "", "not json", "[]", "{}", #"{"version":"2"}"#, #"{"version":2}"#,
            String(good.prefix(good.count / 2)),
            #"{"version":2,"credentials":{"token":{"tokenType":"Bearer"}}}"#,
            #"{"version":2,"credentials":{"token":{"accessToken":7}}}"#,
            #"{"version":2,"credentials":{"token":{"accessToken":"AT","expiresAt":"tomorrow"}}}"#,
            #"{"version":2,"credentials":{"token":{"accessToken":"AT","expiresAt":1234}}}"#,
            // ISO 8601 that the stored form does not cover: the full reader decides.
            #"{"version":2,"credentials":{"token":{"accessToken":"AT","expiresAt":"20990101T000000Z"}}}"#,
        ]
        for text in cases {
            #expect(StoredProfile.token(in: Data(text.utf8)) == nil, "\(text)")
        }
        #expect(StoredProfile.token(in: Data(#"{"version":2,"credentials":{"token":{"accessToken":"AT"}}}"#.utf8))?.accessToken == "AT")
    }

    @Test("a missing profile, an invalid name or an unreadable file is nil")
    func missing() throws {
        let home = try ProfileFixture.configHome(try ProfileFixture.data(credentials: try ProfileFixture.credentials()))
        #expect(StoredProfile.token(profile: "default", configHome: home)?.accessToken == "AT-1")
        #expect(StoredProfile.token(profile: "other", configHome: home) == nil)
        #expect(StoredProfile.token(profile: "../authflow/default", configHome: home) == nil)
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: home + "/authflow/default.json")
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: home + "/authflow/default.json") }
        if getuid() != 0 { // root reads any file
            #expect(StoredProfile.token(profile: "default", configHome: home) == nil)
        }
    }

    @Test("the front end reads stored dates as the engine reads them")
    func datesAgreeWithEngine() throws {
        struct Dated: Codable { var version = 2; var date: Date }
        let texts = ["2099-01-01T00:00:00.000", "2026-11-24T11:10:28.123", "2000-02-29T23:59:59.999Z", "1999-12-31T23:00:00-01:00",
                     "2000-01-01T01:30:00+01:30", "2024-06-30T12:00:60", "1970-01-01T00:00:00", "2038-01-19T03:14:08.5Z"]
        for text in texts {
            let mine = try #require(StoredDate.parse(text), "\(text)")
            let engine = try VersionedFile.decode(Dated.self, from: Data(#"{"version":2,"date":"\#(text)"}"#.utf8), current: 2, path: "t").date
            #expect(mine == engine, "\(text)")
        }
        for date in [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_764_000_000.25), Date(timeIntervalSince1970: 4_070_908_800)] {
            let data = try VersionedFile.encode(Dated(date: date))
            let text = try #require(String(decoding: data, as: UTF8.self).split(separator: "\"").dropFirst(3).first)
            #expect(StoredDate.parse(String(text)) == date, "\(text)")
        }
        for bad in ["", "2099-01-01", "2099-01-01T00:00", "2099-13-01T00:00:00", "2099-01-01T24:00:00", "2099-01-01T00:00:00.",
                    "2099-01-01T00:00:00+01", "2099-01-01T00:00:00ZZ", "2099-01-01 00:00:00", "２０99-01-01T00:00:00"] {
            #expect(StoredDate.parse(bad) == nil, "\(bad)")
        }
    }
}
