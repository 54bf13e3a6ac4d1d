import Foundation

@testable import AuthFlow

/// `application/x-www-form-urlencoded` decoding of any bytes, both entry
/// points agreeing; pairs that decode encode back to a text that decodes to
/// the same pairs.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzForm(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    let fromBytes = FormEncoding.decode(utf8: bytes)
    if let text = String(validating: bytes, as: UTF8.self) {
        let fromText = FormEncoding.decode(text)
        fuzzCheck(
            fromText.map { $0.map { "\($0.0)=\($0.1)" } } == fromBytes.map { $0.map { "\($0.0)=\($0.1)" } }, "the two decoders disagree")
    }
    if let pairs = fromBytes {
        let again = FormEncoding.decode(FormEncoding.encode(pairs))
        fuzzCheck(
            again?.count == pairs.count && zip(again ?? [], pairs).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 },
            "encode then decode changed the pairs")
    }
    // Arbitrary text as one value: escaping is reversible.
    let value = String(decoding: bytes, as: UTF8.self)
    let pair = FormEncoding.decode(FormEncoding.encode([("k", value)]))
    fuzzCheck(pair?.count == 1 && pair?[0].0 == "k" && pair?[0].1 == value, "a value did not survive encoding")
    return 0
}
