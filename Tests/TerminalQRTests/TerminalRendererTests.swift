import Testing

@testable import TerminalQR

@Suite("TerminalQR: encoder rules and half-block rendering")
struct TerminalRendererTests {
    @Test("two modules per character cell, quiet zone included")
    func shape() throws {
        let code = try QRCode(text: "hello")
        #expect(code.version == 1 && code.size == 21)
        let lines = TerminalRenderer(quietZone: 4).render(code).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == (21 + 8 + 1) / 2)
        #expect(lines.allSatisfy { $0.count == 29 })
        #expect(lines[0].allSatisfy { $0 == "\u{2588}" }, "the quiet zone is drawn (light on a dark terminal)")
        #expect(Set(lines.joined()).isSubset(of: ["\u{2588}", "\u{2580}", "\u{2584}", " "]))
    }

    @Test("inverted draws the dark modules; cells map to module pairs")
    func cells() throws {
        let code = try QRCode(text: "WDJB-MJHT")
        let normal = Array(TerminalRenderer(quietZone: 0).render(code).split(separator: "\n").map(Array.init))
        let inverted = Array(TerminalRenderer(quietZone: 0, inverted: true).render(code).split(separator: "\n").map(Array.init))
        for row in 0..<normal.count {
            for x in 0..<code.size {
                let top = code[x, 2 * row]
                let bottom = 2 * row + 1 < code.size ? code[x, 2 * row + 1] : false
                let expected: Character =
                    switch (top, bottom) {
                    case (true, true): "\u{2588}"
                    case (true, false): "\u{2580}"
                    case (false, true): "\u{2584}"
                    case (false, false): " "
                    }
                #expect(inverted[row][x] == expected)
            }
        }
        // Top-left finder: dark on the first row, so the normal rendering leaves it blank.
        #expect(normal[0][0] == " ")
    }

    @Test("capacity: smallest version, byte-count limits, bad parameters")
    func capacity() throws {
        #expect(try QRCode(bytes: Array(repeating: 0x41, count: 14), errorCorrection: .medium).version == 1)
        #expect(try QRCode(bytes: Array(repeating: 0x41, count: 15), errorCorrection: .medium).version == 2)
        #expect(try QRCode(bytes: Array(repeating: 0x41, count: 17), errorCorrection: .low).version == 1)
        #expect(try QRCode(bytes: Array(repeating: 0x41, count: 2331), errorCorrection: .medium).version == 40)
        #expect(throws: QRCode.EncodingError.self) { try QRCode(bytes: Array(repeating: 0, count: 2332), errorCorrection: .medium) }
        #expect(throws: QRCode.EncodingError.self) { try QRCode(text: "x", versions: 1...10, mask: 8) }
        #expect(throws: QRCode.EncodingError.self) { try QRCode(bytes: Array(repeating: 0, count: 300), versions: 1...10) }
    }

    @Test("Reed–Solomon: the codeword polynomial is divisible by the generator")
    func reedSolomon() {
        let data: [UInt8] = [0x40, 0xD2, 0x75, 0x47, 0x76, 0x17, 0x32, 0x06, 0x27, 0x26, 0x96, 0xC6, 0xC6, 0x96, 0x70, 0xEC]
        let rs = ReedSolomon(degree: 10)
        let ecc = rs.remainder(of: data)
        #expect(ecc.count == 10)
        #expect(rs.remainder(of: data + ecc) == Array(repeating: 0, count: 10))
    }
}
