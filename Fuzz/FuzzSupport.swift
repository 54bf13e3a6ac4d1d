import Foundation

/// Shared by every fuzz target: the input as bytes, and a failure that
/// libFuzzer records as a crash (the process traps, the input is written).

/// The fuzzer's input as an array.
func fuzzBytes(_ start: UnsafeRawPointer?, _ count: Int) -> [UInt8] {
    guard let start, count > 0 else { return [] }
    return Array(UnsafeRawBufferPointer(start: start, count: count))
}

/// Stops the run: an oracle found two readings that disagree.
func fuzzFailure(_ message: @autoclosure () -> String) -> Never {
    fatalError("fuzz oracle: \(message())")
}

/// Checks an oracle's condition.
func fuzzCheck(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fuzzFailure(message()) }
}
