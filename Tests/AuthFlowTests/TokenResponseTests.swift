import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

@Suite struct TokenResponseTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    private func parse(_ text: String, scopes: [String] = ["openid", "profile"], allowDPoP: Bool = false) throws -> TokenResponse {
        try TokenResponse(json: json(text), requestedScopes: scopes, allowDPoP: allowDPoP, now: now)
    }

    @Test func minimalResponse() throws {
        let token = try parse(#"{"access_token":"AT","token_type":"Bearer"}"#)
        #expect(token.accessToken == "AT")
        #expect(token.tokenType == "Bearer")
        #expect(token.expiresIn == nil)
        #expect(token.expiresAt == nil)
        #expect(token.refreshToken == nil)
        #expect(token.idToken == nil)
        #expect(token.scopes == ["openid", "profile"])
        #expect(token.additional.isEmpty)
    }

    @Test func fullResponse() throws {
        let token = try parse(
            #"{"access_token":"AT","token_type":"Bearer","expires_in":3600,"refresh_token":"RT","id_token":"a.b.c","scope":"openid email"}"#
        )
        #expect(token.expiresIn == 3600)
        #expect(token.expiresAt == now.addingTimeInterval(3600))
        #expect(token.refreshToken == "RT")
        #expect(token.idToken == "a.b.c")
        #expect(token.scopes == ["openid", "email"])
    }

    @Test(arguments: ["bearer", "BEARER", "Bearer", "bEaReR"])
    func bearerIsNormalised(_ type: String) throws {
        #expect(try parse(#"{"access_token":"AT","token_type":"\#(type)"}"#).tokenType == "Bearer")
    }

    @Test func dpopRefusedUnlessAllowed() throws {
        expectError(.invalidResponse) { try parse(#"{"access_token":"AT","token_type":"DPoP"}"#) }
        #expect(try parse(#"{"access_token":"AT","token_type":"dpop"}"#, allowDPoP: true).tokenType == "DPoP")
    }

    @Test(arguments: [
        #"{"access_token":"AT","token_type":"mac"}"#,
        #"{"access_token":"AT","token_type":""}"#,
        #"{"token_type":"Bearer"}"#,
        #"{"access_token":"","token_type":"Bearer"}"#,
        #"{"access_token":"AT"}"#,
        #"{"access_token":7,"token_type":"Bearer"}"#,
        #"{"access_token":"AT","token_type":"Bearer","refresh_token":5}"#,
        #"{"access_token":"AT","token_type":"Bearer","scope":["openid"]}"#,
        #"{"access_token":"AT","token_type":"Bearer","id_token":{}}"#,
    ])
    func invalidMembers(_ text: String) {
        expectError(.invalidResponse) { try parse(text) }
    }

    /// RFC 6749 Appendix A: tokens are printable ASCII. A control character
    /// (an escape sequence, a line break that would split a header) or a
    /// non-ASCII character is refused in either token.
    @Test(arguments: [#"AT\u001b]0;pwned\u0007"#, #"AT\r\nX-Injected: 1"#, #"AT\u007f"#, #"AT\u00e9"#, #"AT\t"#])
    func tokensOutsidePrintableASCIIAreRefused(_ token: String) {
        let access = expectError(.invalidResponse) { try parse(#"{"access_token":"\#(token)","token_type":"Bearer"}"#) }
        #expect(access?.message == "token response has access_token with characters outside printable ASCII (RFC 6749 Appendix A)")
        let refresh = expectError(.invalidResponse) {
            try parse(#"{"access_token":"AT","token_type":"Bearer","refresh_token":"\#(token)"}"#)
        }
        #expect(refresh?.message == "token response has refresh_token with characters outside printable ASCII (RFC 6749 Appendix A)")
    }

    @Test func printableTokensAreKept() throws {
        let printable = String(decoding: (0x20...0x7E).filter { $0 != 0x22 && $0 != 0x5C }, as: UTF8.self)
        let token = try parse(#"{"access_token":"\#(printable)","token_type":"Bearer","refresh_token":"\#(printable)"}"#)
        #expect(token.accessToken == printable && token.refreshToken == printable)
    }

    @Test func expiresInAsNumberOrNumericString() throws {
        #expect(try parse(#"{"access_token":"AT","token_type":"Bearer","expires_in":3600}"#).expiresIn == 3600)
        #expect(try parse(#"{"access_token":"AT","token_type":"Bearer","expires_in":"3600"}"#).expiresIn == 3600)
        #expect(try parse(#"{"access_token":"AT","token_type":"Bearer","expires_in":3600.0}"#).expiresIn == 3600)
        #expect(try parse(#"{"access_token":"AT","token_type":"Bearer","expires_in":null}"#).expiresIn == nil)
    }

    /// 0 and 1 must stay numbers (not be read as JSON booleans).
    @Test(arguments: [0, 1])
    func expiresInZeroAndOne(_ value: Int) throws {
        let token = try parse(#"{"access_token":"AT","token_type":"Bearer","expires_in":\#(value)}"#)
        #expect(token.expiresIn == value)
        #expect(token.expiresAt == now.addingTimeInterval(TimeInterval(value)))
    }

    @Test(arguments: [
        #""abc""#, "-1", "1.5", #""-5""#, "true", "[]", #""""#, "1e300", "10000000000", #""10000000000""#, #""9223372036854775807""#,
    ])
    func invalidExpiresIn(_ value: String) {
        expectError(.invalidResponse) { try parse(#"{"access_token":"AT","token_type":"Bearer","expires_in":\#(value)}"#) }
    }

    @Test func absentScopeMeansRequestedScopes() throws {
        #expect(try parse(#"{"access_token":"AT","token_type":"Bearer"}"#, scopes: ["a", "b"]).scopes == ["a", "b"])
        #expect(try parse(#"{"access_token":"AT","token_type":"Bearer","scope":"c"}"#, scopes: ["a", "b"]).scopes == ["c"])
    }

    @Test func unknownMembersAreKept() throws {
        let token = try parse(#"{"access_token":"AT","token_type":"Bearer","foo":"bar","n":42,"flag":true,"one":1,"obj":{"x":[1,null]}}"#)
        #expect(
            token.additional == [
                "foo": .string("bar"), "n": .number(42), "flag": .bool(true), "one": .number(1),
                "obj": .object(["x": .array([.number(1), .null])]),
            ])
    }

    @Test(arguments: [
        "", "not json", #"{"access_token":"AT","token_type":"Bearer""#, #"[{"access_token":"AT","token_type":"Bearer"}]"#, "null",
        #""str""#,
    ])
    func notAJSONObject(_ text: String) {
        expectError(.invalidResponse) { try parse(text) }
    }

    @Test func descriptionHidesTokens() throws {
        let token = try parse(
            #"{"access_token":"ACCESS-SECRET-1","token_type":"Bearer","refresh_token":"REFRESH-SECRET-2","id_token":"ID.TOKEN.SECRET3"}"#)
        for text in [token.description, "\(token)"] {
            #expect(!text.contains("ACCESS-SECRET-1"))
            #expect(!text.contains("REFRESH-SECRET-2"))
            #expect(!text.contains("ID.TOKEN.SECRET3"))
        }
        let credentials = OAuthCredentials(issuer: nil, clientID: "c", token: token, idToken: nil)
        #expect(!credentials.description.contains("ACCESS-SECRET-1"))
        #expect(!credentials.description.contains("REFRESH-SECRET-2"))
    }

    @Test func codableRoundTrip() throws {
        let token = try parse(#"{"access_token":"AT","token_type":"Bearer","expires_in":60,"x":"y"}"#)
        let decoded = try JSONDecoder().decode(TokenResponse.self, from: JSONEncoder().encode(token))
        #expect(decoded == token)
    }
}
