import AuthFlowTestSupport
import Testing

@testable import AuthFlow

/// The comparison behind the state, nonce, `at_hash` and access-token checks.
@Suite struct ConstantTimeComparisonTests {
    @Test func equalOnlyWhenEveryByteAndTheLengthMatch() {
        #expect(constantTimeEquals("nonce-1", "nonce-1"))
        #expect(constantTimeEquals("", ""))
        #expect(!constantTimeEquals("nonce-1", "nonce-2"))
        #expect(!constantTimeEquals("Nonce-1", "nonce-1"))
        // A prefix, and a difference only in the length, are not equal.
        #expect(!constantTimeEquals("nonce", "nonce-1"))
        #expect(!constantTimeEquals("nonce-1", "nonce"))
        #expect(!constantTimeEquals("", "a"))
        // A longer text whose extra bytes are zero is not equal either.
        #expect(!constantTimeEquals([0x61], [0x61, 0x00]))
        // Compared as UTF-8: canonically equivalent spellings differ.
        #expect(!constantTimeEquals("é", "e\u{0301}"))
        #expect(constantTimeEquals([UInt8]("état".utf8), "état".utf8))
    }
}
