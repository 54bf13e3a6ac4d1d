import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

@Suite struct AppleAppSiteAssociationTests {
    @Test func fileNamesTheAppForWebCredentialsAndTheCallbackPath() throws {
        let file = try AppleAppSiteAssociation(appIDs: ["ABCDE12345.com.example.app"], paths: ["/oauth/callback"])
        let text = String(decoding: try file.json(), as: UTF8.self)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let webcredentials = try #require(object["webcredentials"] as? [String: Any])
        #expect(webcredentials["apps"] as? [String] == ["ABCDE12345.com.example.app"])
        let details = try #require((object["applinks"] as? [String: Any])?["details"] as? [[String: Any]])
        #expect(details.count == 1)
        #expect(details[0]["appIDs"] as? [String] == ["ABCDE12345.com.example.app"])
        #expect(details[0]["components"] as? [[String: String]] == [["/": "/oauth/callback"]])
        #expect(text.contains("\"/\" : \"/oauth/callback\"")) // slashes unescaped
    }

    @Test(arguments: [
        "com.example.app", "abcde12345.com.example.app", "ABCDE1234.com.example.app", "ABCDE12345.", "ABCDE12345.com example",
        "ABCDE12345..x.",
    ])
    func malformedAppIDsAreRefused(_ appID: String) throws {
        let error = try #require(throws: AuthFlowError.self) { try AppleAppSiteAssociation(appIDs: [appID], paths: ["/cb"]) }
        #expect(error.category == .configuration)
        #expect(error.message.contains("is not an app ID"))
        #expect(error.recovery?.contains("Team ID") == true)
    }

    @Test(arguments: ["callback", "/cb?x=1", "/cb#f", "/cb/*", "/c b", ""])
    func nonLiteralPathsAreRefused(_ path: String) throws {
        let error = try #require(throws: AuthFlowError.self) {
            try AppleAppSiteAssociation(appIDs: ["ABCDE12345.com.example.app"], paths: [path])
        }
        #expect(error.message.contains("is not a callback path"))
    }

    @Test func missingArgumentsAreRefused() {
        #expect(throws: AuthFlowError.self) { try AppleAppSiteAssociation(appIDs: [], paths: ["/cb"]) }
        #expect(throws: AuthFlowError.self) { try AppleAppSiteAssociation(appIDs: ["ABCDE12345.com.example.app"], paths: []) }
    }
}
