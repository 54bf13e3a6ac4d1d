import AuthFlow
import Foundation

/// JSON serialisation of provider responses: sorted keys, slashes unescaped.
enum JSONBody {
    static func bytes(_ value: JSONValue) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }
}
