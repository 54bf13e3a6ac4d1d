public import Logging

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The JWK Set of one issuer, cached, refetched when it expires or when a
/// token names a key it does not hold (key rotation): an unknown key always
/// causes one refetch, unless another unknown key caused one less than
/// ``minimumRefetchInterval`` ago.
public actor KeySetCache {
    private let jwksURI: URL
    private let transport: any HTTPTransport
    private let timeout: TimeInterval
    private let logger: Logger
    /// The shortest time between two fetches caused by unknown keys.
    public let minimumRefetchInterval: TimeInterval
    /// The set and when it expires, readable without an actor hop.
    private nonisolated let cached = LockedValue<(set: JSONWebKeySet, expiresAt: Date)?>(nil)
    /// When a token naming an unknown key last caused a fetch. Ordinary
    /// fetches (first use, expiry) do not count: the first rotation seen
    /// right after one must still be retried.
    private var lastUnknownKeyRefetch: Date = .distantPast
    private var inFlight: Task<JSONWebKeySet, any Error>?

    /// Creates a cache for `jwksURI` (must be https or loopback).
    public init(
        jwksURI: URL, transport: any HTTPTransport, timeout: TimeInterval = 30,
        minimumRefetchInterval: TimeInterval = 30, logger: Logger = .authFlow()
    ) throws {
        try URLPolicy.requireSecure(jwksURI, "jwks_uri")
        self.jwksURI = jwksURI
        self.transport = transport
        self.timeout = timeout
        self.minimumRefetchInterval = minimumRefetchInterval
        self.logger = logger
    }

    /// The cached set, fetched first when absent or expired.
    public func keySet() async throws -> JSONWebKeySet {
        if let current = currentKeySet() { return current }
        return try await fetch()
    }

    /// The cached set while it has not expired, without waiting for the actor.
    nonisolated func currentKeySet() -> JSONWebKeySet? {
        cached.withLock { cached in
            guard let cached, Date() < cached.expiresAt else { return nil }
            return cached.set
        }
    }

    /// Fetches again because a token named an unknown key; returns nil when
    /// another unknown key caused a fetch less than ``minimumRefetchInterval`` ago.
    func refetchForUnknownKey() async throws -> JSONWebKeySet? {
        let now = Date()
        guard now.timeIntervalSince(lastUnknownKeyRefetch) >= minimumRefetchInterval else {
            logger.debug("not refetching the JWK Set: an unknown key caused a fetch too recently")
            return nil
        }
        lastUnknownKeyRefetch = now
        return try await fetch()
    }

    private func fetch() async throws -> JSONWebKeySet {
        if let inFlight { return try await inFlight.value }
        let task = Task { [jwksURI, transport, timeout, logger] in
            logger.debug("fetching JWK Set", metadata: ["url": "\(jwksURI.absoluteString)"])
            let response = try await transport.send(
                HTTPTransportRequest(
                    method: "GET", url: jwksURI, headers: [("Accept", "application/json")], timeout: timeout, purpose: .keySet))
            guard response.status == 200 else { throw AuthFlowError.invalidResponse("JWK Set request answered HTTP \(response.status)") }
            return (try JSONWebKeySet(json: response.body), KeySetCache.maxAge(response.header("Cache-Control")))
        }
        let wrapped = Task { try await task.value.0 }
        inFlight = wrapped
        defer { inFlight = nil }
        let (set, maxAge) = try await task.value
        let fetched = Date()
        cached.withLock { $0 = (set, fetched.addingTimeInterval(maxAge)) }
        logger.debug("JWK Set loaded", metadata: ["keys": "\(set.keys.count)", "max_age": "\(Int(maxAge))"])
        return set
    }

    /// `max-age` from Cache-Control, clamped to 1 minute … 1 day (default 1 hour).
    static func maxAge(_ header: String?) -> TimeInterval {
        guard let header else { return 3600 }
        for directive in header.split(separator: ",") {
            let parts = directive.trimmingWhitespace().split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "max-age",
                let seconds = Double(parts[1].trimmingScalars(where: { $0 == "\"" }))
            {
                return min(max(seconds, 60), 86_400)
            }
            if parts.first?.lowercased() == "no-store" || parts.first?.lowercased() == "no-cache" { return 60 }
        }
        return 3600
    }
}
