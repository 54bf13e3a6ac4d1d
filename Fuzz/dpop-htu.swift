import Foundation

@testable import AuthFlow

/// The `htu` an API builds from a request's path (`DPoPTarget.requestURL`,
/// which the Hummingbird middleware calls with whatever path NIO accepted):
/// any path ends in a URL or nil, never a trap; a URL only for a valid URI
/// path, and one that normalises to the resource's origin and that path.
let resource = URL(string: "https://api.example:8443/base")!

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDPoPHTU(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let path = String(decoding: fuzzBytes(data, size), as: UTF8.self)
    for candidate in [path, "/" + path] {
        guard let url = DPoPTarget.requestURL(origin: resource, path: candidate) else {
            fuzzCheck(!DPoPTarget.isValidPath(candidate), "a valid path without a URL")
            continue
        }
        fuzzCheck(DPoPTarget.isValidPath(candidate), "a URL for an invalid path")
        fuzzCheck(url.hasPrefix("https://api.example:8443/"), "the URL left the resource's origin")
        fuzzCheck(DPoPTarget.normalized(url) != nil, "the URL does not normalise")
    }
    return 0
}
