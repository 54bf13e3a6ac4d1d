#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The provider's acknowledgement of a backchannel authentication request
/// (OpenID CIBA Core 1.0 §7.3).
///
/// `auth_req_id` is a secret: whoever holds it (with the client's
/// credentials) can collect the tokens. ``description`` and the value's
/// mirror leave it out, and AuthFlow never logs it.
public struct BackchannelAuthenticationResponse: Sendable, Equatable {
    /// `auth_req_id`, the request's identifier for the token request. Secret.
    public let authenticationRequestID: String
    /// How long the request waits for the user, in seconds.
    public let expiresIn: Int
    /// Seconds between polls (5 when the provider did not say).
    public let interval: Int

    /// Parses a 2xx answer: `auth_req_id` and a positive `expires_in` are
    /// required, `interval` is optional and not negative; anything else is
    /// ``AuthFlowError/Category/invalidResponse``.
    public init(json data: Data) throws {
        let context = "backchannel authentication response"
        guard let object = JSONMemberValue.object(from: data) else {
            throw AuthFlowError.invalidResponse("\(context) is not a JSON object")
        }
        let reader = MemberReader(object: object, context: context)
        authenticationRequestID = try reader.requiredString("auth_req_id")
        guard !authenticationRequestID.isEmpty, authenticationRequestID.utf8.count <= 4096 else {
            throw AuthFlowError.invalidResponse("\(context): auth_req_id is empty or longer than 4096 bytes")
        }
        guard let lifetime = try DeviceAuthorizationResponse.seconds(object["expires_in"], "expires_in", in: context), lifetime > 0 else {
            throw AuthFlowError.invalidResponse("\(context): expires_in is missing or not positive")
        }
        expiresIn = lifetime
        interval =
            try DeviceAuthorizationResponse.seconds(object["interval"], "interval", in: context)
            ?? DeviceAuthorizationResponse.defaultInterval
    }

    /// Creates a response value (tests, custom transports).
    public init(authenticationRequestID: String, expiresIn: Int, interval: Int = DeviceAuthorizationResponse.defaultInterval) {
        self.authenticationRequestID = authenticationRequestID
        self.expiresIn = expiresIn
        self.interval = interval
    }
}

extension BackchannelAuthenticationResponse: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The lifetime and interval; `auth_req_id` is redacted.
    public var description: String {
        "BackchannelAuthenticationResponse(expires_in: \(expiresIn), interval: \(interval), auth_req_id: <redacted>)"
    }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// A mirror without `auth_req_id`, so `dump` cannot show it.
    public var customMirror: Mirror {
        Mirror(
            self, children: ["expiresIn": expiresIn, "interval": interval, "authenticationRequestID": "<redacted>"],
            displayStyle: .struct)
    }
}
