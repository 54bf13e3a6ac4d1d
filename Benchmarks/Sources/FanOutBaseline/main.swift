import Dispatch
import Foundation

// The floor under the SessionRefresh figures, without AuthFlow: 10 000 unstructured
// tasks await one Task's value, which becomes available after 6 ms (about the
// benchmark's refresh round trip). Per waiter: completion − max(its start, the moment
// the value was ready), the same "added latency" SessionRefresh reports.
//
//   swift run -c release FanOutBaseline [rounds]

let callers = 10_000
let rounds = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 20

@inline(__always) func nowNanos() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var added: [UInt64] = []
    private var remaining = 0
    private var finished: CheckedContinuation<Void, Never>?

    func start(count: Int, finished: CheckedContinuation<Void, Never>) {
        lock.withLock { remaining = count; self.finished = finished }
    }

    func record(_ value: UInt64) {
        let done: CheckedContinuation<Void, Never>? = lock.withLock {
            added.append(value)
            remaining -= 1
            return remaining == 0 ? finished : nil
        }
        done?.resume()
    }

    func all() -> [UInt64] { lock.withLock { added } }
}

final class ReadyTime: @unchecked Sendable {
    private let lock = NSLock()
    private var value: UInt64 = 0
    func set(_ new: UInt64) { lock.withLock { value = new } }
    var current: UInt64 { lock.withLock { value } }
}

let results = Results()
for _ in 0..<rounds {
    let ready = ReadyTime()
    let value = Task { () -> String in
        try? await Task.sleep(nanoseconds: 6_000_000)
        ready.set(nowNanos())
        return "token"
    }
    await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
        results.start(count: callers, finished: finished)
        for _ in 0..<callers {
            Task {
                let start = nowNanos()
                let token = await value.value
                let end = nowNanos()
                precondition(token == "token")
                let from = max(start, ready.current)
                results.record(end > from ? end - from : 0)
            }
        }
    }
}
let sorted = results.all().sorted()
func percentile(_ p: Double) -> Double { Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1_000_000 }
print(String(format: "%d rounds × %d waiters: added latency p50 %.2f ms, p99 %.2f ms, max %.2f ms",
             rounds, callers, percentile(0.5), percentile(0.99), Double(sorted.last ?? 0) / 1_000_000))
