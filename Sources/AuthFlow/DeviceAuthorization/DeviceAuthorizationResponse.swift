#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A device authorization response (RFC 8628 §3.2): what to show the user,
/// and the device code to poll with.
///
/// The device code is a secret: ``description``, ``debugDescription`` and the
/// value's mirror (`dump`, `String(reflecting:)`) leave it out, and AuthFlow
/// never logs it.
public struct DeviceAuthorizationResponse: Sendable, Equatable {
    /// The device verification code. Secret: never show or log it.
    public let deviceCode: String
    /// The code the user enters at ``verificationURI``.
    public let userCode: String
    /// Where the user goes on a second device.
    public let verificationURI: URL
    /// ``verificationURI`` with the user code in it, when the server gives one
    /// (for a QR code or a link: the user then only confirms).
    public let verificationURIComplete: URL?
    /// Lifetime of the device and user codes, in seconds.
    public let expiresIn: Int
    /// Seconds to wait between polls, as the server asked (5 when it did not say).
    public let interval: Int

    /// The default polling interval of RFC 8628 §3.2.
    public static let defaultInterval = 5

    /// Parses a 2xx device authorization body.
    ///
    /// `device_code`, `user_code`, `verification_uri` and a positive
    /// `expires_in` are required; `interval` defaults to 5 seconds and must
    /// not be negative. Anything else is
    /// ``AuthFlowError/Category/invalidResponse``.
    public init(json data: Data) throws {
        guard let object = JSONMemberValue.object(from: data) else {
            throw AuthFlowError.invalidResponse("device authorization response is not a JSON object")
        }
        let reader = MemberReader(object: object, context: "device authorization response")
        deviceCode = try reader.requiredString("device_code")
        userCode = try reader.requiredString("user_code")
        // Some providers (Google) spell it verification_url.
        if object["verification_uri"] == nil, object["verification_url"] != nil {
            verificationURI = try reader.requiredURL("verification_url")
        } else {
            verificationURI = try reader.requiredURL("verification_uri")
        }
        verificationURIComplete = try reader.url("verification_uri_complete")
        // These URLs go to a browser: only web URLs, never file:, javascript: or an app scheme.
        for url in [verificationURI] + (verificationURIComplete.map { [$0] } ?? []) {
            guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http" else {
                throw AuthFlowError.invalidResponse("device authorization response: the verification URI is not an http(s) URL")
            }
        }
        guard let lifetime = try Self.seconds(object["expires_in"], "expires_in"), lifetime > 0 else {
            throw AuthFlowError.invalidResponse("device authorization response: expires_in is missing or not positive")
        }
        expiresIn = lifetime
        interval = try Self.seconds(object["interval"], "interval") ?? Self.defaultInterval
    }

    /// Creates a response value (tests, custom transports).
    public init(
        deviceCode: String, userCode: String, verificationURI: URL, verificationURIComplete: URL? = nil,
        expiresIn: Int, interval: Int = DeviceAuthorizationResponse.defaultInterval
    ) {
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.expiresIn = expiresIn
        self.interval = interval
    }

    /// A non-negative whole number of seconds, as a JSON number or numeric
    /// string (also read in CIBA's answer, whose members are the same).
    static func seconds(_ value: JSONMemberValue?, _ name: String, in context: String = "device authorization response") throws -> Int? {
        switch value {
        case nil, .null?:
            return nil
        case .number(let number)? where number >= 0 && number < 1e9 && number.rounded() == number:
            return Int(number)
        case .string(let text)? where Int(text).map({ $0 >= 0 }) == true:
            return Int(text)
        default:
            throw AuthFlowError.invalidResponse("\(context): \(name) must be a non-negative whole number")
        }
    }
}

extension DeviceAuthorizationResponse: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// What the user sees; the device code is redacted.
    public var description: String {
        "DeviceAuthorizationResponse(user_code: \(userCode), verification_uri: \(verificationURI.absoluteString), "
            + "verification_uri_complete: \(verificationURIComplete == nil ? "no" : "yes"), expires_in: \(expiresIn), "
            + "interval: \(interval), device_code: <redacted>)"
    }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// A mirror without the device code, so `dump` cannot show it.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "userCode": userCode, "verificationURI": verificationURI,
                "verificationURIComplete": verificationURIComplete as Any,
                "expiresIn": expiresIn, "interval": interval, "deviceCode": "<redacted>",
            ], displayStyle: .struct)
    }
}
