import Foundation
import Testing
@testable import AuthFlow

@Suite struct ErrorTests {
    @Test func categoryRawValuesAreTheDesignNames() {
        let names = AuthFlowError.Category.allCases.map(\.rawValue)
        #expect(names == [
            "oauth_error", "state_mismatch", "issuer_mismatch", "id_token_invalid", "userinfo_subject_mismatch",
            "invalid_response", "configuration", "network", "timeout", "cancelled", "reauthentication_required", "storage",
        ])
    }

    @Test func reasonRawValues() {
        #expect(AuthFlowError.Reason.allCases.map(\.rawValue) == [
            "signature", "algorithm", "key_not_found", "issuer", "audience", "authorized_party", "expired",
            "issued_at", "nonce", "at_hash", "auth_time", "subject", "malformed",
        ])
    }

    @Test(arguments: AuthFlowError.Category.allCases)
    func everyCategoryHasARecoverySuggestion(_ category: AuthFlowError.Category) {
        let suggestion = AuthFlowError(category, "m").recoverySuggestion
        #expect(!suggestion.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
    }

    @Test func oauthErrorSuggestionDependsOnCode() {
        func suggestion(_ code: String) -> String {
            AuthFlowError(.oauthError, code, oauth: OAuthErrorResponse(error: code)).recoverySuggestion
        }
        #expect(suggestion("access_denied").contains("declined"))
        #expect(suggestion("invalid_grant") != suggestion("access_denied"))
        #expect(suggestion("server_error") == suggestion("temporarily_unavailable"))
        #expect(suggestion("invalid_client") == suggestion("unauthorized_client"))
        #expect(!suggestion("something_else").isEmpty)
    }

    @Test func descriptionFormat() {
        #expect(AuthFlowError(.network, "could not connect").description == "network: could not connect")
        #expect(AuthFlowError(.idTokenInvalid, "bad", reason: .atHash).description == "id_token_invalid (at_hash): bad")
        let oauth = AuthFlowError(.oauthError, "invalid_grant",
                                  oauth: OAuthErrorResponse(error: "invalid_grant", errorDescription: "code used"))
        #expect(oauth.description == "oauth_error: invalid_grant – code used")
        #expect(oauth.errorDescription == oauth.description)
        #expect(oauth.localizedDescription == oauth.description)
    }

    @Test func categoryAndOAuthResponseAreCodableWithSnakeCase() throws {
        let data = try JSONEncoder().encode(OAuthErrorResponse(error: "e", errorDescription: "d", errorURI: "https://u"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: String])
        #expect(object == ["error": "e", "error_description": "d", "error_uri": "https://u"])
        let category = try JSONDecoder().decode([AuthFlowError.Category].self, from: json(#"["id_token_invalid"]"#))
        #expect(category == [.idTokenInvalid])
    }
}
