import Foundation

@testable import AuthFlow

/// WebFinger (OpenID Connect Discovery 1.0 §2): the first byte chooses the
/// reader. Even: the rest is a WebFinger answer (a JRD), which ends in an
/// https (or loopback) issuer or `invalid_response`. Odd: the rest is what a
/// user typed, which ends in a `WebFingerResource` or `configuration`; a
/// resource normalises to itself again, and its query URL asks its host.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebFinger(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard let selector = bytes.first else { return 0 }
    let rest = Array(bytes.dropFirst())
    if selector % 2 == 0 {
        do {
            let resource = try WebFingerResource("acct:alice@example.com")
            let issuer = try WebFingerLookup.issuer(inJRD: Data(rest), resource: resource)
            fuzzCheck((try? URLPolicy.requireSecure(issuer.url, "issuer")) != nil, "an issuer off https was accepted")
        } catch let error as AuthFlowError {
            fuzzCheck(error.category == .invalidResponse, "unexpected error category \(error.category)")
        } catch {
            fuzzFailure("an error that is not an AuthFlowError")
        }
        return 0
    }
    let text = String(decoding: rest, as: UTF8.self)
    do {
        let resource = try WebFingerResource(text)
        fuzzCheck(
            resource.resource.hasPrefix("acct:") || resource.resource.lowercased().hasPrefix("https://")
                || resource.resource.lowercased().hasPrefix("http://"), "a resource without acct:, https: or http:")
        fuzzCheck(!resource.host.isEmpty && !resource.host.contains("/") && !resource.host.contains("@"), "a host with a path or user")
        let again = try? WebFingerResource(resource.resource)
        fuzzCheck(again == resource, "a normalised resource normalises to another")
        let query = resource.issuerQueryURL
        fuzzCheck(query.path == "/.well-known/webfinger" && query.host?.isEmpty == false, "the query does not ask the host")
    } catch let error as AuthFlowError {
        fuzzCheck(error.category == .configuration, "unexpected error category \(error.category)")
    } catch {
        fuzzFailure("an error that is not an AuthFlowError")
    }
    return 0
}
