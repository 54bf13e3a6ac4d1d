#if CLI // the CLI package trait
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Prints numbered steps with their durations, or, for `--json`, keeps
/// them for the one JSON object printed at the end.
struct StepPrinter {
    /// One step as `--json` reports it.
    struct Step: Encodable {
        let name: String
        let milliseconds: Double
        let detail: String

        enum CodingKeys: String, CodingKey {
            case name = "step"
            case milliseconds = "ms"
            case detail
        }
    }

    private var count = 0
    private(set) var total = 0.0
    private(set) var steps: [Step] = []
    private let clock = ContinuousClock()
    /// Whether each step is printed when it ends (else only kept).
    let printsLines: Bool

    init(printsLines: Bool = true) {
        self.printsLines = printsLines
    }

    mutating func step<T>(_ name: String, _ body: () async throws -> T, detail: (T) -> String) async throws -> T {
        let start = clock.now
        let value = try await body()
        let elapsed = clock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        count += 1
        total += milliseconds
        let text = detail(value)
        steps.append(Step(name: name, milliseconds: (milliseconds * 10).rounded() / 10, detail: text))
        if printsLines {
            let number = TextColumns.right(String(count), width: 2)
            let duration = TextColumns.right(TextColumns.fixed(milliseconds, decimals: 1), width: 7)
            Output.stdout("\(number). \(TextColumns.left(name, width: 26)) \(duration) ms  \(text)")
        }
        return value
    }

    mutating func step(_ name: String, _ body: () async -> Void, detail: () -> String) async {
        _ = try? await step(name, { await body() }, detail: { _ in detail() })
    }
}
#endif
