#if CLI // the CLI package trait
import Foundation

/// Prints numbered steps with their durations.
struct StepPrinter {
    private var count = 0
    private(set) var total = 0.0
    private let clock = ContinuousClock()

    mutating func step<T>(_ name: String, _ body: () async throws -> T, detail: (T) -> String) async throws -> T {
        let start = clock.now
        let value = try await body()
        let elapsed = clock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        count += 1
        total += milliseconds
        let number = String(count).leftPadded(2)
        Output.stdout(
            "\(number). \(name.padding(toLength: 26, withPad: " ", startingAt: 0)) \(String(format: "%7.1f", milliseconds)) ms  \(detail(value))"
        )
        return value
    }

    mutating func step(_ name: String, _ body: () async -> Void, detail: () -> String) async {
        _ = try? await step(name, { await body() }, detail: { _ in detail() })
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
#endif
