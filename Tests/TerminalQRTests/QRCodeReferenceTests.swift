import Foundation
import Testing

@testable import TerminalQR

/// The encoder against Debian's reference tools: module for module against
/// `qrencode` (with qrencode's mask forced on ours), and read back by
/// `zbarimg` with the mask our penalty scoring chose.
@Suite("TerminalQR against qrencode and zbarimg")
struct QRCodeReferenceTests {
    /// Lengths chosen to land in versions 1 to 10 (and past the 8-bit count of version 9).
    static let inputs: [String] = {
        let base = "https://id.example.test/device?user_code=WDJB-MJHT&x="
        var texts = ["A", "hello", "WDJB-MJHT", "https://ex.test/d", base]
        for length in [60, 80, 100, 120, 150, 180, 213, 230, 260] {
            texts.append(String((base + String(repeating: "0123456789abcdefghij", count: 20)).prefix(length)))
        }
        texts.append("grüße, 日本語 ✓")
        return texts
    }()

    @Test(
        "same matrix as qrencode -8 (same version, level, mask)",
        .enabled(if: ExternalTools.haveQrencode), arguments: [ErrorCorrectionLevel.low, .medium, .quartile, .high])
    func matchesQrencode(level: ErrorCorrectionLevel) throws {
        var versions: Set<Int> = []
        for text in Self.inputs {
            let automatic = try QRCode(text: text, errorCorrection: level)
            let reference = try ExternalTools.qrencodeMatrix(text, level: level, minVersion: automatic.version)
            #expect(reference.count == automatic.size, "qrencode chose another version for \(text.utf8.count) bytes")
            guard reference.count == automatic.size else { continue }
            let ours = try QRCode(text: text, errorCorrection: level, mask: ExternalTools.mask(of: reference))
            let rows = (0..<ours.size).map { y in (0..<ours.size).map { x in ours[x, y] } }
            #expect(rows == reference, "matrix differs for \(text.utf8.count) bytes, version \(ours.version), mask \(ours.mask)")
            versions.insert(ours.version)
        }
        #expect(versions.count >= 6)
    }

    @Test("every version 1–10 at M, with forced min version, matches qrencode", .enabled(if: ExternalTools.haveQrencode))
    func everyVersion() throws {
        for version in 1...10 {
            let text = "v\(version)"
            let reference = try ExternalTools.qrencodeMatrix(text, level: .medium, minVersion: version)
            let ours = try QRCode(text: text, errorCorrection: .medium, versions: version...40, mask: ExternalTools.mask(of: reference))
            #expect(ours.version == version)
            let rows = (0..<ours.size).map { y in (0..<ours.size).map { x in ours[x, y] } }
            #expect(rows == reference, "version \(version)")
        }
    }

    @Test("zbarimg reads back what we encode (our mask choice, L and M)", .enabled(if: ExternalTools.haveZbarimg))
    func zbarDecodes() throws {
        for level in [ErrorCorrectionLevel.low, .medium] {
            for text in Self.inputs where text.allSatisfy(\.isASCII) {
                let code = try QRCode(text: text, errorCorrection: level)
                #expect(try ExternalTools.zbarDecode(code) == text, "version \(code.version) mask \(code.mask)")
            }
        }
    }

    @Test("all eight masks decode", .enabled(if: ExternalTools.haveZbarimg))
    func everyMaskDecodes() throws {
        let text = "https://id.example.test/device?user_code=QRST-VWXZ"
        for mask in 0..<8 {
            let code = try QRCode(text: text, mask: mask)
            #expect(code.mask == mask)
            #expect(try ExternalTools.zbarDecode(code) == text, "mask \(mask)")
        }
    }
}
