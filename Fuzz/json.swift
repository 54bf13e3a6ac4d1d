import Foundation

@testable import AuthFlow

/// The strict JSON parser (`JSONParser`): any bytes end in a value or a
/// typed failure. A value it reads is re-encoded by Foundation and read again
/// to the same value (Foundation is the oracle for what was read).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    guard let value = try? JSONParser.parse(bytes) else {
        _ = JSONMemberValue.object(from: bytes)
        return 0
    }
    // JSONMemberValue is Codable: encode it and parse the encoding again.
    if let encoded = try? JSONEncoder().encode(value) {
        let again = try? JSONParser.parse(Array(encoded))
        fuzzCheck(again == value, "a value did not survive re-encoding")
    }
    if case .object(let object) = value {
        fuzzCheck(JSONMemberValue.object(from: bytes) == object, "object(from:) read another object than parse")
    } else {
        fuzzCheck(JSONMemberValue.object(from: bytes) == nil, "object(from:) read a non-object")
    }
    return 0
}
