@testable import AuthFlow
import Foundation

/// Stored credential records (`CredentialCoding`, `VersionedFile`): any
/// bytes end in credentials or a typed error; credentials that load store
/// and load again to the same record.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCredentials(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = Data(fuzzBytes(data, size))
    do {
        let credentials = try CredentialCoding.decode(bytes, source: "fuzz.json")
        let stored = try CredentialCoding.encode(credentials)
        let again = try CredentialCoding.decode(stored, source: "fuzz.json")
        fuzzCheck(try CredentialCoding.encode(again) == stored, "a stored record does not load back the same")
    } catch let error as AuthFlowError {
        _ = error.category
    } catch {
        fuzzFailure("an error that is not an AuthFlowError: \(type(of: error))")
    }
    return 0
}
