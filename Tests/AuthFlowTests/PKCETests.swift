import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

@Suite struct PKCETests {
    /// RFC 7636 Appendix B. (The verifier is the base64url of the 32 octets
    /// listed there; it is 43 characters long.)
    @Test func rfc7636AppendixBVector() throws {
        let pkce = try AuthorizationRequest.PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(pkce.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(
            AuthorizationRequest.PKCE.challenge(for: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
                == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(pkce.method == "S256")
    }

    @Test func freshVerifierIs43Base64URLCharactersAndUnique() {
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var seen = Set<String>()
        for _ in 0..<50 {
            let pkce = AuthorizationRequest.PKCE()
            #expect(pkce.verifier.count == 43)
            #expect(pkce.verifier.allSatisfy(alphabet.contains))
            #expect(pkce.challenge == AuthorizationRequest.PKCE.challenge(for: pkce.verifier))
            #expect(pkce.method == "S256")
            seen.insert(pkce.verifier)
        }
        #expect(seen.count == 50)
    }

    @Test func boundaryLengthsAreAccepted() throws {
        _ = try AuthorizationRequest.PKCE(verifier: String(repeating: "a", count: 43))
        _ = try AuthorizationRequest.PKCE(verifier: String(repeating: "~", count: 128))
        _ = try AuthorizationRequest.PKCE(verifier: "abcdefghijklmnopqrstuvwxyz-._~ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    }

    @Test(arguments: [
        String(repeating: "a", count: 42),
        String(repeating: "a", count: 129),
        String(repeating: "a", count: 42) + "+",
        String(repeating: "a", count: 42) + "/",
        String(repeating: "a", count: 42) + "=",
        String(repeating: "a", count: 42) + " ",
        String(repeating: "a", count: 42) + "é",
        "",
    ])
    func invalidVerifierIsConfigurationError(_ verifier: String) {
        expectError(.configuration) { try AuthorizationRequest.PKCE(verifier: verifier) }
    }

    @Test func codableRoundTripKeepsVerifierAndRecomputesChallenge() throws {
        let pkce = AuthorizationRequest.PKCE()
        let data = try JSONEncoder().encode(pkce)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: String])
        #expect(object == ["verifier": pkce.verifier])
        let decoded = try JSONDecoder().decode(AuthorizationRequest.PKCE.self, from: data)
        #expect(decoded == pkce)
        #expect(decoded.challenge == pkce.challenge)
    }

    @Test func decodingAnInvalidVerifierFails() {
        expectError(.configuration) { try JSONDecoder().decode(AuthorizationRequest.PKCE.self, from: json(#"{"verifier":"short"}"#)) }
    }

    @Test func descriptionHidesVerifier() {
        let pkce = AuthorizationRequest.PKCE()
        #expect(!pkce.description.contains(pkce.verifier))
        #expect(!"\(pkce)".contains(pkce.verifier))
        #expect(!String(reflecting: pkce).isEmpty)
    }
}
