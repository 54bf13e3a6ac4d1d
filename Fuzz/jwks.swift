import Foundation

@testable import AuthFlow

/// JWK Set documents (`jwks_uri`): any bytes end in a key set (unusable keys
/// skipped) or `invalid_response`; every key kept can be asked whether it fits
/// each algorithm without trapping.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJWKS(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = Data(fuzzBytes(data, size))
    do {
        let set = try JSONWebKeySet(json: bytes)
        for key in set.keys {
            for algorithm in JWSAlgorithm.allCases {
                _ = key.fits(algorithm)
                _ = key.fits(keyID: "k", algorithm: algorithm)
            }
        }
    } catch let error as AuthFlowError {
        fuzzCheck(error.category == .invalidResponse, "unexpected error category \(error.category)")
    } catch {
        fuzzFailure("an error that is not an AuthFlowError")
    }
    return 0
}
