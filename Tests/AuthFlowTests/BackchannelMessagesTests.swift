import AuthFlow
import Foundation
import Testing

/// The CIBA values a hostile provider or caller controls: each malformed one
/// is a typed error, and no secret reaches a description.
@Suite("Backchannel authentication messages")
struct BackchannelMessagesTests {
    @Test("an acknowledgement without auth_req_id, with expires_in 0 or a negative interval is invalid_response")
    func hostileAcknowledgements() throws {
        let context = "backchannel authentication response"
        #expect(throws: AuthFlowError(.invalidResponse, "\(context): auth_req_id is missing")) {
            try BackchannelAuthenticationResponse(json: Data(#"{"expires_in":60}"#.utf8))
        }
        #expect(throws: AuthFlowError(.invalidResponse, "\(context): expires_in is missing or not positive")) {
            try BackchannelAuthenticationResponse(json: Data(#"{"auth_req_id":"a","expires_in":0}"#.utf8))
        }
        #expect(throws: AuthFlowError(.invalidResponse, "\(context): interval must be a non-negative whole number")) {
            try BackchannelAuthenticationResponse(json: Data(#"{"auth_req_id":"a","expires_in":60,"interval":-1}"#.utf8))
        }
        #expect(throws: AuthFlowError(.invalidResponse, "\(context) is not a JSON object")) {
            try BackchannelAuthenticationResponse(json: Data("[]".utf8))
        }
        let fine = try BackchannelAuthenticationResponse(json: Data(#"{"auth_req_id":"SECRET-ID","expires_in":"120"}"#.utf8))
        #expect(fine.interval == 5 && fine.expiresIn == 120)
        var dumped = ""
        dump(fine, to: &dumped)
        #expect(!"\(fine)".contains("SECRET-ID") && !dumped.contains("SECRET-ID"))
    }

    @Test("a notification must be a Bearer token and a small JSON object with auth_req_id")
    func hostileNotifications() throws {
        let body = Data(#"{"auth_req_id":"id-1"}"#.utf8)
        #expect(throws: AuthFlowError(.invalidResponse, "backchannel notification: the Authorization header is not a Bearer token")) {
            try BackchannelNotification(authorization: "Basic abc", body: body)
        }
        #expect(throws: AuthFlowError(.invalidResponse, "backchannel notification: the Authorization header is not a Bearer token")) {
            try BackchannelNotification(authorization: nil, body: body)
        }
        #expect(throws: AuthFlowError(.invalidResponse, "backchannel notification: the body is not a JSON object of at most 4096 bytes")) {
            try BackchannelNotification(authorization: "Bearer t", body: Data(repeating: 0x20, count: 5000))
        }
        #expect(throws: AuthFlowError(.invalidResponse, "backchannel notification: auth_req_id is missing or not a string")) {
            try BackchannelNotification(authorization: "Bearer t", body: Data(#"{"auth_req_id":5}"#.utf8))
        }
        let notification = try BackchannelNotification(authorization: "bearer TOKEN-1", body: body)
        #expect(notification.bearerToken == "TOKEN-1" && notification.authenticationRequestID == "id-1")
        #expect(!"\(notification)".contains("TOKEN-1") && !"\(notification)".contains("id-1"))
    }

    @Test("the request's description and mirror never show a hint token or the user code")
    func requestRedaction() {
        var request = BackchannelAuthenticationRequest(user: .loginHintToken("HINT-TOKEN"), scopes: ["profile"])
        request.userCode = "USER-CODE"
        var dumped = ""
        dump(request, to: &dumped)
        for text in ["\(request)", dumped, String(reflecting: request)] {
            #expect(!text.contains("HINT-TOKEN") && !text.contains("USER-CODE"))
        }
        #expect("\(request)".contains("scope: openid profile"))
    }
}
