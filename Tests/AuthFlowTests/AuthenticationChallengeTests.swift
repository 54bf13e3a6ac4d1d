import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// The one `WWW-Authenticate` parser (RFC 9110 §11.6.1) and its three
/// readers: the DPoP nonce retry, bearer errors and the token endpoint's
/// Basic challenge.
@Suite struct AuthenticationChallengeTests {
    typealias Challenge = AuthenticationChallenge

    @Test func severalChallengesInOneFieldValue() {
        let parsed = Challenge.parse(#"Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple""#)
        #expect(
            parsed == [
                Challenge(scheme: "newauth", parameters: [("realm", "apps"), ("type", "1"), ("title", #"Login to "apps""#)]),
                Challenge(scheme: "basic", parameters: [("realm", "simple")]),
            ])
    }

    @Test func token68EmptyElementsAndBareSchemes() {
        #expect(
            Challenge.parse("Basic dXNlcjpwYXNz==, , Negotiate, DPoP algs=ES256") == [
                Challenge(scheme: "basic", token68: "dXNlcjpwYXNz=="),
                Challenge(scheme: "negotiate"),
                Challenge(scheme: "dpop", parameters: [("algs", "ES256")]),
            ])
    }

    @Test func schemeAndParameterNamesAreCaseInsensitiveAndSpacesAroundEqualsAllowed() {
        let parsed = Challenge.parse(#"DPOP ERROR = "use_dpop_nonce" ,\#tError_Description="x""#)
        #expect(parsed.count == 1 && parsed[0].isScheme("dpop") && parsed[0]["error"] == "use_dpop_nonce")
        #expect(parsed[0]["ERROR_DESCRIPTION"] == "x")
    }

    /// The long fuzz run's finding (in its oracle, not the parser): a quote
    /// followed by a combining mark is one `Character`. The parser works on
    /// bytes, so the quoted-pair is unescaped, and the rest of the value,
    /// obs-text included, is kept.
    @Test func aQuotedPairBeforeACombiningMarkIsUnescaped() throws {
        let bytes = try #require(Data(base64Encoded: "TmV3YXV0aCByZVBsbT0iYVD/////cHNcIt6u//Yi"))
        let parsed = Challenge.parse(String(decoding: bytes, as: UTF8.self))
        #expect(
            parsed == [
                Challenge(scheme: "newauth", parameters: [("replm", "aP\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}ps\"\u{07AE}\u{FFFD}\u{FFFD}")])
            ])
        let header = "Bearer error=\"a\\\"\u{0301}b\""
        let expected = "a\"\u{0301}b"
        let error = Challenge.parse(header).first?["error"]
        #expect(error == expected)
    }

    @Test func repeatedFieldsAreOneList() {
        let response = HTTPTransportResponse(
            status: 401,
            headers: [
                ("WWW-Authenticate", #"Bearer realm="api""#),
                ("www-authenticate", #"DPoP error="use_dpop_nonce""#),
            ])
        #expect(Challenge.challenges(in: response).map(\.scheme) == ["bearer", "dpop"])
    }

    @Test func parsingStopsAtTheFirstSyntaxError() {
        // Unterminated quote, a control character, a repeated parameter, a scheme glued to "=".
        #expect(
            Challenge.parse(#"Basic realm="x", Bearer error="unterminated"#) == [Challenge(scheme: "basic", parameters: [("realm", "x")])])
        #expect(Challenge.parse("Bearer error=\"a\u{1}b\"").isEmpty)
        #expect(Challenge.parse(#"Bearer error="a", error="b""#).isEmpty)
        #expect(Challenge.parse("=x, Bearer error=y").isEmpty)
        #expect(Challenge.parse("").isEmpty && Challenge.parse(" , ,").isEmpty)
    }

    @Test func theDPoPNonceRetryFindsItsChallengeAmongOthers() {
        let binding = DPoPBinding()
        let url = URL(string: "https://rs.example/api")!
        func asks(_ fields: [(String, String)]) -> Bool {
            binding.noteNonce(in: HTTPTransportResponse(status: 401, headers: fields + [("DPoP-Nonce", "n")]), from: url)
        }
        // The first form failed before: the value did not start with "dpop".
        #expect(asks([("WWW-Authenticate", #"Bearer realm="api", DPoP error="use_dpop_nonce", algs="ES256""#)]))
        #expect(asks([("WWW-Authenticate", #"Bearer realm="api""#), ("WWW-Authenticate", #"dpop ERROR=use_dpop_nonce"#)]))
        // Named elsewhere than a DPoP challenge's error: no retry.
        #expect(!asks([("WWW-Authenticate", #"DPoP error="invalid_token", error_description="use_dpop_nonce""#)]))
        #expect(!asks([("WWW-Authenticate", #"Bearer error="use_dpop_nonce""#)]))
    }

    @Test func bearerErrorsAndInvalidTokenAreReadFromAnyChallenge() {
        let response = HTTPTransportResponse(
            status: 401, headers: [("WWW-Authenticate", #"Basic realm="x", Bearer error="invalid_token", error_description="expired""#)])
        #expect(BearerChallenge(response)?.error == "invalid_token")
        #expect(BearerChallenge(response)?.description == "expired")
        #expect(AuthSession.saysInvalidToken(response))
        #expect(
            !AuthSession.saysInvalidToken(
                HTTPTransportResponse(status: 401, headers: [("WWW-Authenticate", #"Bearer error_description="invalid_token""#)])))
    }

    @Test func aBasicChallengeAnywhereMeansInvalidClient() {
        let response = HTTPTransportResponse(status: 401, headers: [("WWW-Authenticate", #"Bearer realm="x", basic realm="token""#)])
        let error = #expect(throws: AuthFlowError.self) { try TokenEndpoint.requireSuccess(response, what: "token request") }
        #expect(error?.oauth?.error == "invalid_client")
    }
}
