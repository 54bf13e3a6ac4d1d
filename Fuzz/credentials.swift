import Foundation

@testable import AuthFlow

/// Stored credential records (`CredentialCoding`, `VersionedFile`): any
/// bytes end in credentials or a typed error; credentials that load save
/// and load again to the same record.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCredentials(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = Data(fuzzBytes(data, size))
    let credentials: SessionRecord
    do {
        credentials = try CredentialCoding.decode(bytes, source: "fuzz.json")
    } catch let error as AuthFlowError {
        _ = error.category
        return 0
    } catch {
        fuzzFailure("an error that is not an AuthFlowError: \(type(of: error))")
    }
    // A record that loads must save, and load again as the same record.
    do {
        let stored = try CredentialCoding.encode(credentials)
        let again = try CredentialCoding.decode(stored, source: "fuzz.json")
        fuzzCheck(try CredentialCoding.encode(again) == stored, "a stored record does not load back the same")
    } catch {
        fuzzFailure("a record that loads does not save and load again: \(error)")
    }
    return 0
}
