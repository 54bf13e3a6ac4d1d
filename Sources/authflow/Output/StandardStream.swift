#if CLI // the CLI package trait
import AuthFlow
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard input, output or error: everything the CLI prints or reads
/// from its client goes through these (``Output``, ``ProgressLine``, the
/// credential helpers' answers and ``HelperInput``), with `read(2)` and
/// `write(2)` (the engine's `DescriptorStream`).
typealias StandardStream = DescriptorStream

extension DescriptorStream {
    static let input = DescriptorStream(descriptor: STDIN_FILENO)
    static let output = DescriptorStream(descriptor: STDOUT_FILENO)
    static let error = DescriptorStream(descriptor: STDERR_FILENO)
}
#endif
