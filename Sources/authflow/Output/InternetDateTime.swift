#if CLI // the CLI package trait
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A date as the CLI prints it: RFC 3339 in UTC to the second,
/// `2026-11-30T09:00:00Z` (`authflow status`, the demo's time claims,
/// kubectl's `expirationTimestamp`).
///
/// The text Foundation's `ISO8601DateFormatter` (`.withInternetDateTime`,
/// its default) wrote, with FoundationEssentials' ISO 8601 style in place of
/// the formatter, which on Linux lives in swift-corelibs-foundation with ICU
/// (docs/performance.md, "Size"). The formatter rounded the date to the
/// millisecond before it dropped the fraction (13.9996 s is second 14); the
/// style drops it at once (second 13), so the date is rounded here first.
/// The texts differ only before year 1, which the formatter wrote as the year
/// of the era (1 BC as `0001`) and the style writes as ISO 8601's (`0000`).
enum InternetDateTime {
    static func string(from date: Date) -> String {
        // The formatter's millisecond: seconds since 1970, from the reference
        // date as Foundation keeps it, times 1000, plus a half, rounded down.
        let milliseconds = ((date.timeIntervalSinceReferenceDate + 978_307_200) * 1000 + 0.5).rounded(.down)
        guard milliseconds.magnitude < 1e18 else { return date.formatted(.iso8601) }
        let (seconds, remainder) = Int64(milliseconds).quotientAndRemainder(dividingBy: 1000)
        let second = remainder < 0 ? seconds - 1 : seconds
        return Date(timeIntervalSince1970: Double(second)).formatted(.iso8601)
    }
}
#endif
