import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

@Suite struct FormEncodingTests {
    @Test func reservedCharactersAndNonASCIIArePercentEncoded() {
        #expect(FormEncoding.escape("+") == "%2B")
        #expect(FormEncoding.escape("&") == "%26")
        #expect(FormEncoding.escape("=") == "%3D")
        #expect(FormEncoding.escape("%") == "%25")
        #expect(FormEncoding.escape("/") == "%2F")
        #expect(FormEncoding.escape(" ") == "%20")
        #expect(FormEncoding.escape("é") == "%C3%A9")
        #expect(FormEncoding.escape("😀") == "%F0%9F%98%80")
        #expect(FormEncoding.escape("?#:@") == "%3F%23%3A%40")
    }

    /// The one `%XX` writer (form bodies, DPoP `htu` normalisation, the
    /// credential helpers' paths) is `%%%02X` for every byte.
    @Test func everyByteEscapesAsPrintfPercent02X() {
        for byte in UInt8.min...UInt8.max {
            var output: [UInt8] = []
            FormEncoding.appendEscape(of: byte, to: &output)
            #expect(String(decoding: output, as: UTF8.self) == String(format: "%%%02X", byte))
        }
    }

    @Test func unreservedCharactersAreKept() {
        let unreserved = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
        #expect(FormEncoding.escape(unreserved) == unreserved)
    }

    @Test func encodeJoinsPairsInOrder() {
        #expect(FormEncoding.encode([("b", "2"), ("a", "x y"), ("c+", "&=")]) == "b=2&a=x%20y&c%2B=%26%3D")
        #expect(FormEncoding.encode([]) == "")
    }

    @Test func decodeInvertsEncode() throws {
        let pairs = [("grant_type", "authorization_code"), ("weird + & = % / ", "é😀 \n\t"), ("empty", ""), ("dup", "1"), ("dup", "2")]
        let decoded = try #require(FormEncoding.decode(FormEncoding.encode(pairs)))
        #expect(decoded.map(\.0) == pairs.map(\.0))
        #expect(decoded.map(\.1) == pairs.map(\.1))
    }

    @Test func plusDecodesToSpaceAndEncodedPlusToPlus() throws {
        let decoded = try #require(FormEncoding.decode("a=x+y&b=x%2By&c"))
        #expect(decoded.map(\.0) == ["a", "b", "c"])
        #expect(decoded.map(\.1) == ["x y", "x+y", ""])
        #expect(try #require(FormEncoding.decode("")).isEmpty)
    }

    @Test(arguments: ["a=%", "a=%4", "a=%zz", "%G1=b", "a=%FF", "a=%C3"])
    func malformedEscapesGiveNil(_ text: String) {
        #expect(FormEncoding.decode(text) == nil)
    }

    @Test("bodies decoded from bytes give the pairs decode(_:) gives")
    func formBodies() {
        let bodies = [
            "", "&", "&&a=1&&", "a", "a=", "=b", "=", "a=b=c",
            "grant_type=authorization_code&code=x-y_z.~&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcallback",
            "a+b=c+d", "x=%41%62%2b%2B", "x=%", "x=%4", "x=%4g", "x=%zz", "x=%C3%A9", "x=%C3", "x=%FF", "%3D=%26", "a=1&a=2", "a=%00\r\n\t",
            "a=é&b=ü", "&\u{301}=x",
        ]
        for body in bodies {
            let fast = FormEncoding.decode(utf8: Array(body.utf8))
            let reference = FormEncoding.decode(body)
            #expect(fast?.map(\.0) == reference?.map(\.0), "\(body)")
            #expect(fast?.map(\.1) == reference?.map(\.1), "\(body)")
        }
    }
}
