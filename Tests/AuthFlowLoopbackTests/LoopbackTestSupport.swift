import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `body` and checks it throws an `AuthFlowError` of exactly `category`.
@discardableResult
func expectError<T>(
    _ category: AuthFlowError.Category, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> T
) async -> AuthFlowError? {
    do {
        _ = try await body()
    } catch let error as AuthFlowError {
        #expect(error.category == category, "wrong category: \(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected AuthFlowError \(category.rawValue), got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
        return nil
    }
    Issue.record("expected \(category.rawValue) but nothing was thrown", sourceLocation: sourceLocation)
    return nil
}

/// An authorization request for `redirectURI` (explicit endpoints, never contacted).
func authorizationRequest(redirectURI: URL) throws -> AuthorizationRequest {
    let metadata = ProviderMetadata(
        issuer: "https://idp.example", authorizationEndpoint: URL(string: "https://idp.example/authorize")!,
        tokenEndpoint: URL(string: "https://idp.example/token")!)
    let client = try OAuthClient(metadata: metadata, clientID: "app")
    return try client.authorizationRequest(redirectURI: redirectURI, scopes: ["openid"])
}

struct SimpleResponse: Sendable {
    var status: Int
    var headers: [String: String]
    var body: String
    func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// A plain GET with URLSession (no caching, no redirects followed).
func get(_ url: URL, method: String = "GET", body: Data? = nil) async throws -> SimpleResponse {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    let session = URLSession(configuration: configuration)
    defer { session.finishTasksAndInvalidate() }
    var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 5)
    request.httpMethod = method
    request.httpBody = body
    let (data, response) = try await session.data(for: request)
    let http = try #require(response as? HTTPURLResponse)
    var headers: [String: String] = [:]
    for (name, value) in http.allHeaderFields { headers["\(name)"] = "\(value)" }
    return SimpleResponse(status: http.statusCode, headers: headers, body: String(decoding: data, as: UTF8.self))
}

/// A GET that blocks the calling thread (for synchronous `open` closures).
func blockingGet(_ url: URL) -> Int? {
    let result = LockedValue<Int?>(nil)
    let done = DispatchSemaphore(value: 0)
    let session = URLSession(configuration: .ephemeral)
    session.dataTask(with: URLRequest(url: url, timeoutInterval: 5)) { _, response, _ in
        result.withLock { $0 = (response as? HTTPURLResponse)?.statusCode }
        done.signal()
    }.resume()
    _ = done.wait(timeout: .now() + 5)
    session.finishTasksAndInvalidate()
    return result.withLock { $0 }
}

/// Whether a TCP connection to 127.0.0.1:`port` is accepted.
#if os(Linux)
/// The inodes of the TCP sockets listening on 127.0.0.1:`port`, from
/// /proc/net/tcp (local address as little-endian hex, state 0A is LISTEN,
/// the inode in the tenth column).
func listeningSocketInodes(port: Int) -> [String] {
    // Read to the end with read(2): the file reports a size of 0, and it spans
    // many pages while other suites hold sockets.
    let fd = open("/proc/net/tcp", O_RDONLY)
    guard fd >= 0 else { return [] }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { break }
        bytes += chunk[..<count]
    }
    let table = String(decoding: bytes, as: UTF8.self)
    let address = "0100007F:" + String(format: "%04X", port)
    return table.split(separator: "\n").dropFirst().compactMap { line in
        let columns = line.split(separator: " ")
        guard columns.count > 9, columns[1] == address, columns[3] == "0A" else { return nil }
        return String(columns[9])
    }
}
#endif

func canConnect(port: Int) -> Bool {
    guard let fd = connectedLoopbackSocket(port: port) else { return false }
    close(fd)
    return true
}

/// A TCP socket connected to 127.0.0.1:`port` (SIGPIPE off on Darwin; on
/// Linux each send passes MSG_NOSIGNAL); nil when refused. The caller closes it.
func connectedLoopbackSocket(port: Int) -> Int32? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    #if canImport(Darwin)
    var on: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
    #endif
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
        close(fd)
        return nil
    }
    return fd
}
