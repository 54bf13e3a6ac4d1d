#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A ping-mode notification from the provider to the client's notification
/// endpoint (OpenID CIBA Core 1.0 §10.2): `POST` with
/// `Authorization: Bearer <client_notification_token>` and the JSON body
/// `{"auth_req_id": "…"}`.
///
/// Parse what your server received, then hand it to
/// ``PendingBackchannelAuthentication/accept(_:)``; answer `204 No Content`
/// when it returns true. Both values are secrets: ``description`` leaves them out.
public struct BackchannelNotification: Sendable, CustomStringConvertible, CustomReflectable {
    /// The bearer token of the `Authorization` header.
    public let bearerToken: String
    /// The body's `auth_req_id`.
    public let authenticationRequestID: String

    /// The largest body read: the notification is one short member.
    public static let maximumBodySize = 4096

    /// Reads a notification.
    ///
    /// - Parameters:
    ///   - authorization: the request's `Authorization` header value.
    ///   - body: the request body.
    /// - Throws: ``AuthFlowError/Category/invalidResponse`` when the header
    ///   is not `Bearer` with a token, or the body is larger than
    ///   ``maximumBodySize``, not a JSON object, or has no string `auth_req_id`.
    public init(authorization: String?, body: Data) throws {
        let context = "backchannel notification"
        guard let authorization, authorization.count > 7, authorization.prefix(7).lowercased() == "bearer " else {
            throw AuthFlowError.invalidResponse("\(context): the Authorization header is not a Bearer token")
        }
        let token = authorization.dropFirst(7).trimmingWhitespace()
        guard !token.isEmpty, token.utf8.count <= 4096, !token.contains(" ") else {
            throw AuthFlowError.invalidResponse("\(context): the bearer token is empty, too long or has spaces")
        }
        guard body.count <= Self.maximumBodySize, let object = JSONMemberValue.object(from: body) else {
            throw AuthFlowError.invalidResponse("\(context): the body is not a JSON object of at most \(Self.maximumBodySize) bytes")
        }
        guard case .string(let id)? = object["auth_req_id"], !id.isEmpty else {
            throw AuthFlowError.invalidResponse("\(context): auth_req_id is missing or not a string")
        }
        bearerToken = token
        authenticationRequestID = id
    }

    /// No token, no identifier.
    public var description: String { "BackchannelNotification(auth_req_id: <redacted>, token: <redacted>)" }

    /// Nothing secret.
    public var customMirror: Mirror { Mirror(self, children: [:], displayStyle: .struct) }
}
