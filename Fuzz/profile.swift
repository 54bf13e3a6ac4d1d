import AuthFlow
import Foundation

/// The CLI's stored profile records (`Sources/authflow/Profiles/Profile.swift`, read
/// through `VersionedFile`): any bytes end in a profile or a typed error;
/// a profile that loads stores and loads again to the same record.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProfile(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = Data(fuzzBytes(data, size))
    let profile: Profile
    do {
        profile = try VersionedFile.decode(Profile.self, from: bytes, current: Profile.currentVersion, path: "fuzz.json")
    } catch let error as AuthFlowError {
        _ = error.category
        return 0
    } catch {
        fuzzFailure("an error that is not an AuthFlowError: \(type(of: error))")
    }
    // A profile that loads must save, and load again as the same profile.
    do {
        let stored = try VersionedFile.encode(profile)
        let again = try VersionedFile.decode(Profile.self, from: stored, current: Profile.currentVersion, path: "fuzz.json")
        fuzzCheck(try VersionedFile.encode(again) == stored, "a stored profile does not load back the same")
    } catch {
        fuzzFailure("a profile that loads does not save and load again: \(error)")
    }
    return 0
}
