import AuthFlow
import Foundation
import ProfileToken

/// The CLI's stored profile records (`Sources/authflow/Profile.swift`, read
/// through `VersionedFile`): any bytes end in a profile or a typed error;
/// a profile that loads stores and loads again to the same record. The
/// `authflow` front end's reading of the same bytes (`StoredProfile.token(in:)`,
/// FoundationEssentials only) may decline, but when both read a token they
/// read the same one.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProfile(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = Data(fuzzBytes(data, size))
    let fast = StoredProfile.token(in: bytes)
    let profile: Profile
    do {
        profile = try VersionedFile.decode(Profile.self, from: bytes, current: Profile.currentVersion, path: "fuzz.json")
    } catch let error as AuthFlowError {
        _ = error.category
        return 0
    } catch {
        fuzzFailure("an error that is not an AuthFlowError: \(type(of: error))")
    }
    if let fast, let token = profile.credentials?.token {
        let sameExpiry = switch (fast.expiresAt, token.expiresAt) {
        case (nil, nil): true
        case let (a?, b?): a == b
        default: false
        }
        fuzzCheck(fast.accessToken == token.accessToken && fast.tokenType == token.tokenType
                  && fast.expiresIn == token.expiresIn && sameExpiry,
                  "the front end reads another token than the full profile")
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
