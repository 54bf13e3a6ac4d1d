import Foundation

@testable import TerminalQR

/// Debian's `qrencode` and `zbarimg` (packages qrencode, zbar-tools), run as
/// reference implementations. `scripts/test` installs them.
enum ExternalTools {
    static let qrencode = "/usr/bin/qrencode"
    static let zbarimg = "/usr/bin/zbarimg"

    static var haveQrencode: Bool { FileManager.default.isExecutableFile(atPath: qrencode) }
    static var haveZbarimg: Bool { FileManager.default.isExecutableFile(atPath: zbarimg) }

    /// Runs a program; returns its exit status and standard output.
    static func run(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    /// qrencode's module matrix for `text` in 8-bit mode, without quiet zone:
    /// rows of `true` for dark, parsed from `-t ASCII` ("##" dark, "  " light).
    static func qrencodeMatrix(_ text: String, level: ErrorCorrectionLevel, minVersion: Int) throws -> [[Bool]] {
        let letter = ["L", "M", "Q", "H"][level.rawValue]
        let result = try run(qrencode, ["-8", "-l", letter, "-v", "\(minVersion)", "-m", "0", "-t", "ASCII", "-o", "-", text])
        guard result.status == 0 else { throw ToolError.failed("qrencode exited \(result.status)") }
        let lines = String(decoding: result.output, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true)
        return lines.map { line in
            let characters = Array(line)
            return stride(from: 0, to: characters.count, by: 2).map { characters[$0] == "#" }
        }
    }

    /// The mask number in a matrix's format information (first copy).
    static func mask(of matrix: [[Bool]]) -> Int {
        // Bits 14…0 are read along row 8 (columns 0–5, 7, 8) and up column 8
        // (rows 7, 5…0); see QRMatrix.drawFormatBits.
        var bits = 0
        func add(_ x: Int, _ y: Int, _ index: Int) { if matrix[y][x] { bits |= 1 << index } }
        for index in 0...5 { add(8, index, index) }
        add(8, 7, 6)
        add(8, 8, 7)
        add(7, 8, 8)
        for index in 9..<15 { add(14 - index, 8, index) }
        return ((bits ^ 0x5412) >> 10) & 7
    }

    /// Decodes a QR code with zbarimg from a PGM picture of it.
    static func zbarDecode(_ code: QRCode, scale: Int = 4, quietZone: Int = 4) throws -> String {
        let side = (code.size + 2 * quietZone) * scale
        var pixels = [UInt8](repeating: 255, count: side * side)
        for y in 0..<side {
            for x in 0..<side where code[x / scale - quietZone, y / scale - quietZone] {
                pixels[y * side + x] = 0
            }
        }
        var file = Data("P5\n\(side) \(side)\n255\n".utf8)
        file.append(contentsOf: pixels)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("terminalqr-\(UUID().uuidString).pgm")
        try file.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let result = try run(zbarimg, ["--raw", "-q", url.path])
        guard result.status == 0 else { throw ToolError.failed("zbarimg found no code (exit \(result.status))") }
        var text = String(decoding: result.output, as: UTF8.self)
        if text.hasSuffix("\n") { text.removeLast() }
        return text
    }

    enum ToolError: Error { case failed(String) }
}
