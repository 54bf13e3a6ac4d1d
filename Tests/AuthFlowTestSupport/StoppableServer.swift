/// A started test server (or API, or provider) that ``stop()`` ends.
package protocol StoppableServer: Sendable {
    /// Stops it and waits until it has.
    func stop() async
}

extension StoppableServer {
    /// Runs `body` with this started server, then stops it, whether `body` returns or throws.
    package func stopping<T>(after body: (Self) async throws -> T) async throws -> T {
        do {
            let value = try await body(self)
            await stop()
            return value
        } catch {
            await stop()
            throw error
        }
    }
}
