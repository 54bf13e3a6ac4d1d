import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

@Suite struct ErrorTests {
    // MARK: Categories and reasons: stable names, open for additions

    @Test func knownCategoriesAreTheDesignNames() {
        #expect(
            AuthFlowError.Category.known.map(\.rawValue) == [
                "oauth_error", "state_mismatch", "issuer_mismatch", "id_token_invalid", "userinfo_subject_mismatch",
                "invalid_response", "configuration", "network", "timeout", "cancelled", "reauthentication_required", "storage",
                "jwt_invalid",
            ])
        #expect(Set(AuthFlowError.Category.known).count == AuthFlowError.Category.known.count)
    }

    @Test func reasonNames() {
        #expect(
            AuthFlowError.Reason.idToken.map(\.rawValue) == [
                "signature", "algorithm", "key_not_found", "issuer", "audience", "authorized_party", "expired",
                "issued_at", "nonce", "at_hash", "auth_time", "acr", "subject", "malformed",
            ])
        #expect(
            AuthFlowError.Reason.jwt.map(\.rawValue) == [
                "signature", "algorithm", "key_not_found", "issuer", "audience", "expired", "not_before", "issued_at", "subject",
                "malformed",
            ])
        #expect(Set(AuthFlowError.Reason.known) == Set(AuthFlowError.Reason.idToken + AuthFlowError.Reason.jwt))
    }

    /// A category this version does not know (one a later version adds, or
    /// one an app defines) is a value like the others: it matches in a
    /// `switch`, falls through to `default`, round-trips through Codable and
    /// still yields a user sentence; only the advice is absent.
    @Test func categoriesCanBeAdded() throws {
        let added = AuthFlowError.Category(rawValue: "added_later")
        func classify(_ category: AuthFlowError.Category) -> String {
            switch category {
            case .network, .timeout: "transient"
            case .reauthenticationRequired: "sign in"
            case added: "added"
            default: "other"
            }
        }
        #expect(classify(.timeout) == "transient")
        #expect(classify(.reauthenticationRequired) == "sign in")
        #expect(classify(added) == "added")
        #expect(classify(.storage) == "other")
        #expect(!AuthFlowError.Category.known.contains(added))

        let error = AuthFlowError(added, "something new")
        #expect(error.description == "added_later: something new")
        #expect(error.recoverySuggestion == nil)
        #expect(error.errorDescription == "Signing in failed.")
        let decoded = try JSONDecoder().decode(AuthFlowError.Category.self, from: JSONEncoder().encode(added))
        #expect(decoded == added)
    }

    @Test func reasonsMatchInASwitch() {
        func rule(_ reason: AuthFlowError.Reason?) -> String {
            switch reason {
            case .notBefore?, .expired?: "time"
            case .signature?: "signature"
            case nil: "none"
            default: "other"
            }
        }
        #expect(rule(.notBefore) == "time")
        #expect(rule(.signature) == "signature")
        #expect(rule(AuthFlowError.Reason(rawValue: "new_rule")) == "other")
        #expect(rule(nil) == "none")
    }

    @Test func categoriesAndReasonsAreCodableAsTheirRawStrings() throws {
        let encoded = try JSONEncoder().encode(AuthFlowError.Category.known)
        let strings = try JSONDecoder().decode([String].self, from: encoded)
        #expect(strings == AuthFlowError.Category.known.map(\.rawValue))
        let category = try JSONDecoder().decode([AuthFlowError.Category].self, from: json(#"["id_token_invalid", "storage"]"#))
        #expect(category == [.idTokenInvalid, .storage])
        let reasons = try JSONDecoder().decode([AuthFlowError.Reason].self, from: json(#"["not_before", "key_not_found"]"#))
        #expect(reasons == [.notBefore, .keyNotFound])
        #expect(String(decoding: try JSONEncoder().encode(AuthFlowError.Reason.atHash), as: UTF8.self) == #""at_hash""#)
    }

    /// The CLI's `--json` error object is built from these raw strings
    /// (`Output.ErrorEnvelope`); the same shape encoded here shows the
    /// strings it carries did not change.
    @Test func errorEnvelopeCarriesTheSameStrings() throws {
        struct Body: Encodable {
            let category: AuthFlowError.Category
            let reason: AuthFlowError.Reason?
        }
        let error = AuthFlowError(.idTokenInvalid, "bad", reason: .atHash)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(Body(category: error.category, reason: error.reason)), as: UTF8.self)
        #expect(text == #"{"category":"id_token_invalid","reason":"at_hash"}"#)
    }

    // MARK: Words for people

    @Test(arguments: AuthFlowError.Category.known)
    func everyKnownCategoryHasASentenceAndAdvice(_ category: AuthFlowError.Category) throws {
        let error = AuthFlowError(category, "developer details")
        let sentence = try #require(error.errorDescription)
        #expect(sentence.first?.isUppercase == true && sentence.hasSuffix("."), "not a sentence: \(sentence)")
        #expect(!sentence.contains("_"), "protocol names in the user text: \(sentence)")
        #expect(!sentence.contains("developer details"))
        let advice = try #require(error.recoverySuggestion)
        #expect(!advice.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
    }

    @Test func oauthErrorWordsDependOnTheCode() {
        func error(_ code: String) -> AuthFlowError { AuthFlowError(.oauthError, code, oauth: OAuthErrorResponse(error: code)) }
        #expect(error("access_denied").recoverySuggestion?.contains("declined") == true)
        #expect(error("access_denied").errorDescription == "The sign-in was declined.")
        #expect(error("invalid_grant").recoverySuggestion != error("access_denied").recoverySuggestion)
        #expect(error("server_error").recoverySuggestion == error("temporarily_unavailable").recoverySuggestion)
        #expect(error("invalid_client").recoverySuggestion == error("unauthorized_client").recoverySuggestion)
        #expect(error("something_else").errorDescription == "The sign-in provider refused the request.")
    }

    @Test func recoveryOverridesTheCategoryAdvice() {
        let plain = AuthFlowError(.configuration, "no issuer")
        let specific = AuthFlowError(.configuration, "no issuer", recovery: "Give the provider's issuer URL.")
        #expect(plain.recoverySuggestion == "The app's sign-in settings are wrong. Contact the app's developer.")
        #expect(specific.recoverySuggestion == "Give the provider's issuer URL.")
        #expect(specific.recovery == "Give the provider's issuer URL.")
        #expect(plain != specific)
    }

    /// What SwiftUI alerts and `NSError` bridging show: the user sentence and
    /// the advice, on Linux Foundation as on Apple's.
    @Test func localizedErrorBridging() {
        let error = AuthFlowError(.network, "could not connect to 127.0.0.1:9", recovery: "Start the server, then try again.")
        let any: any Error = error
        #expect(any.localizedDescription == "The sign-in provider could not be reached.")
        let localized = any as? any LocalizedError
        #expect(localized?.errorDescription == "The sign-in provider could not be reached.")
        #expect(localized?.recoverySuggestion == "Start the server, then try again.")
        let bridged = any as NSError
        #expect(bridged.localizedDescription == "The sign-in provider could not be reached.")
        #expect(bridged.localizedRecoverySuggestion == "Start the server, then try again.")
    }

    // MARK: Words for developers

    @Test func descriptionKeepsCategoryAndDetails() {
        #expect(AuthFlowError(.network, "could not connect").description == "network: could not connect")
        #expect(AuthFlowError(.idTokenInvalid, "bad", reason: .atHash).description == "id_token_invalid (at_hash): bad")
        #expect(AuthFlowError(.jwtInvalid, "not yet", reason: .notBefore).description == "jwt_invalid (not_before): not yet")
        let oauth = AuthFlowError(
            .oauthError, "invalid_grant",
            oauth: OAuthErrorResponse(error: "invalid_grant", errorDescription: "code used"))
        #expect(oauth.description == "oauth_error: invalid_grant – code used")
        #expect(String(describing: oauth) == oauth.description)
        #expect(oauth.errorDescription != oauth.description)
    }

    @Test func debugDescriptionAddsTheUnderlyingError() {
        let cause = POSIXError(.EACCES)
        let error = AuthFlowError(.storage, "cannot write the profile", underlyingError: cause)
        #expect(error.description == "storage: cannot write the profile")
        #expect(error.debugDescription.hasPrefix("storage: cannot write the profile (underlying: "))
        #expect(error.debugDescription.contains(String(describing: cause)))
        #expect((error.underlyingError as? POSIXError)?.code == .EACCES)
        #expect(AuthFlowError(.network, "x").debugDescription == "network: x")
    }

    @Test func oauthResponseIsCodableWithSnakeCase() throws {
        let data = try JSONEncoder().encode(OAuthErrorResponse(error: "e", errorDescription: "d", errorURI: "https://u"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: String])
        #expect(object == ["error": "e", "error_description": "d", "error_uri": "https://u"])
    }
}
