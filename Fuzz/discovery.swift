import Foundation

@testable import AuthFlow

/// Provider metadata documents (OpenID Discovery / RFC 8414): any bytes end
/// in metadata or `invalid_response`; metadata that parses is checked for
/// transport security and survives the Codable round trip profiles use.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDiscovery(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = Data(fuzzBytes(data, size))
    do {
        let metadata = try ProviderMetadata(json: bytes)
        _ = try? metadata.validateTransportSecurity()
        if let encoded = try? JSONEncoder().encode(metadata) {
            fuzzCheck((try? JSONDecoder().decode(ProviderMetadata.self, from: encoded)) != nil, "stored metadata does not load again")
        }
    } catch let error as AuthFlowError {
        fuzzCheck(error.category == .invalidResponse, "unexpected error category \(error.category)")
    } catch {
        fuzzFailure("an error that is not an AuthFlowError")
    }
    return 0
}
