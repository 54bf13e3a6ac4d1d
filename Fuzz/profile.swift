import AuthFlow
import Foundation

/// The CLI's stored profile records (`Sources/authflow/Profile.swift`, read
/// through `VersionedFile`): any bytes end in a profile or a typed error;
/// a profile that loads stores and loads again to the same record.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProfile(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = Data(fuzzBytes(data, size))
    do {
        let profile = try VersionedFile.decode(Profile.self, from: bytes, current: Profile.currentVersion, path: "fuzz.json")
        let stored = try VersionedFile.encode(profile)
        let again = try VersionedFile.decode(Profile.self, from: stored, current: Profile.currentVersion, path: "fuzz.json")
        fuzzCheck(try VersionedFile.encode(again) == stored, "a stored profile does not load back the same")
    } catch let error as AuthFlowError {
        _ = error.category
    } catch {
        fuzzFailure("an error that is not an AuthFlowError: \(type(of: error))")
    }
    return 0
}
