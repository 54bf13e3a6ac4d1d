import AuthFlowTestSupport
import Testing

@testable import AuthFlow

/// `JWSAlgorithm`: the `alg` names the verifier decides with.
@Suite struct JWSAlgorithmTests {
    @Test func everyNameRoundTrips() {
        let names = JWSAlgorithm.allCases.map(\.name)
        #expect(names == ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "EdDSA", "HS256", "HS384", "HS512"])
        for algorithm in JWSAlgorithm.allCases {
            #expect(JWSAlgorithm(name: algorithm.name) == algorithm)
            #expect(JWSAlgorithm(utf8: Array(algorithm.name.utf8)) == algorithm)
            #expect(algorithm.isSymmetric == algorithm.name.hasPrefix("HS"))
        }
    }

    /// Near misses are not algorithms: case, length, padding, lookalikes, `none`.
    @Test(arguments: [
        "", "none", "None", "RS25", "RS2566", "rs256", "RS256 ", " RS256", "RS256\u{0}", "\u{0}RS256",
        "ES512", "PS256K", "EDDSA", "eddsa", "Ed25519", "ＲS256", "RS２56", "HS1", "XS256", "RS255",
    ])
    func otherNamesAreNotAlgorithms(_ name: String) {
        #expect(JWSAlgorithm(name: name) == nil)
    }

    @Test func setsHoldExactlyTheirMembers() {
        let set = JWSAlgorithmSet(names: ["RS256", "ES256", "none", "HS256", "bogus"])
        #expect(JWSAlgorithm.allCases.filter(set.contains) == [.rs256, .es256, .hs256])
        #expect(JWSAlgorithm.allCases.filter(set.subtracting(.symmetric).contains) == [.rs256, .es256])
        #expect(JWSAlgorithm.allCases.filter(set.intersection(.rsa).contains) == [.rs256])
        #expect(JWSAlgorithm.allCases.filter(JWSAlgorithmSet.rsa.contains) == [.rs256, .rs384, .rs512, .ps256, .ps384, .ps512])
        #expect(JWSAlgorithm.allCases.filter(JWSAlgorithmSet(names: []).contains).isEmpty)
    }
}
