#if Hummingbird // the Hummingbird package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Server nonces for DPoP proofs (RFC 9449 §9): a random value that
/// changes every ``lifetime``; a proof must carry the current one or the one
/// before it, so that a client that just received a nonce is not refused
/// when it turns.
final class DPoPNonces: Sendable {
    let lifetime: TimeInterval
    private let state: LockedValue<(current: String, previous: String?, turnsAt: Date)>

    init(lifetime: TimeInterval) {
        self.lifetime = max(1, lifetime)
        state = LockedValue((Self.random(), nil, Date().addingTimeInterval(max(1, lifetime))))
    }

    /// The nonces accepted now, the current one first.
    func accepted(now: Date = Date()) -> [String] {
        state.withLock { state in
            if now >= state.turnsAt {
                state = (Self.random(), state.current, now.addingTimeInterval(lifetime))
            }
            return [state.current] + (state.previous.map { [$0] } ?? [])
        }
    }

    /// The nonce to hand out (`DPoP-Nonce`).
    func current(now: Date = Date()) -> String { accepted(now: now)[0] }

    private static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}
#endif
