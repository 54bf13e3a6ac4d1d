import Foundation
import Testing

/// The servers `Tests/Interop/servers.py` started, read from the file named by
/// `AUTHFLOW_INTEROP_CONFIG`. Without it the interop suite is disabled
/// (`swift test` alone needs no outside program); `scripts/test` always sets it.
struct InteropConfig: Decodable {
    struct Server: Decodable {
        let issuer: String
        let username: String
        let password: String
        let publicClientID: String
        let confidentialClientID: String
        let confidentialClientSecret: String
        let postClientID: String?
        let postClientSecret: String?
        /// The server's request log, to count what it received.
        let log: String

        /// How many token-endpoint POSTs the server has logged so far.
        func tokenRequests() -> Int {
            guard let data = FileManager.default.contents(atPath: log), let path = URLComponents(string: tokenEndpoint)?.percentEncodedPath
            else { return 0 }
            return String(decoding: data, as: UTF8.self).components(separatedBy: "POST \(path) ").count - 1
        }

        let tokenEndpoint: String
        /// RFC 8628: the device client, and the endpoint when the server does not publish it.
        let deviceClientID: String?
        let deviceAuthorizationEndpoint: String?
        let devicePublishesEndpoint: Bool?
        let deviceIssuesIDToken: Bool?
        /// Authlib only: poll timestamps the server saw, by user code.
        let devicePollsURL: String?

        enum CodingKeys: String, CodingKey {
            case issuer, username, password
            case publicClientID = "public_client_id"
            case confidentialClientID = "confidential_client_id"
            case confidentialClientSecret = "confidential_client_secret"
            case postClientID = "post_client_id"
            case postClientSecret = "post_client_secret"
            case log
            case tokenEndpoint = "token_endpoint"
            case deviceClientID = "device_client_id"
            case deviceAuthorizationEndpoint = "device_authorization_endpoint"
            case devicePublishesEndpoint = "device_publishes_endpoint"
            case deviceIssuesIDToken = "device_issues_id_token"
            case devicePollsURL = "device_polls_url"
        }
    }

    let browser: String
    let servers: [String: Server]

    static let path = ProcessInfo.processInfo.environment["AUTHFLOW_INTEROP_CONFIG"]
    static var isAvailable: Bool { path != nil }

    static func load() throws -> InteropConfig {
        guard let path, let data = FileManager.default.contents(atPath: path) else {
            throw InteropError.missingConfig
        }
        return try JSONDecoder().decode(InteropConfig.self, from: data)
    }

    func server(_ name: String) throws -> Server {
        guard let server = servers[name] else { throw InteropError.missingServer(name) }
        return server
    }
}

enum InteropError: Error {
    case missingConfig
    case missingServer(String)
}

/// Every interop suite runs inside this one, one test at a time: several
/// count the requests the shared servers logged, so nothing else may talk to
/// those servers meanwhile.
@Suite("Interop against real servers", .enabled(if: InteropConfig.isAvailable), .serialized)
struct InteropSuites {}
