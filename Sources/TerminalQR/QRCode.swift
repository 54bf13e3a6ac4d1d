/// A QR code (ISO/IEC 18004) of bytes in byte mode: the module matrix, ready
/// to draw.
///
/// ```swift
/// let code = try QRCode(text: "https://id.example.com/device?user_code=WDJB-MJHT")
/// print(TerminalRenderer().render(code))
/// ```
package struct QRCode: Sendable, Equatable {
    /// 1…40; the size is 17 + 4 × version modules.
    package let version: Int
    /// The error correction level used.
    package let errorCorrection: ErrorCorrectionLevel
    /// The data mask applied, 0…7.
    package let mask: Int
    /// Modules per side.
    package let size: Int
    /// Row-major, `true` for a dark module.
    package let modules: [Bool]

    /// Why a QR code could not be made.
    package enum EncodingError: Error, Equatable, Sendable {
        /// The data does not fit in the largest allowed version.
        case dataTooLong(bytes: Int, maxVersion: Int)
        /// A version outside 1…40 or a mask outside 0…7 was asked for.
        case invalidParameter(String)
    }

    /// Encodes UTF-8 text.
    package init(
        text: String, errorCorrection: ErrorCorrectionLevel = .medium,
        versions: ClosedRange<Int> = 1...40, mask: Int? = nil
    ) throws {
        try self.init(bytes: Array(text.utf8), errorCorrection: errorCorrection, versions: versions, mask: mask)
    }

    /// Encodes `bytes` in byte mode in the smallest version of `versions` that
    /// holds them. Without `mask`, the mask with the lowest penalty score
    /// (ISO/IEC 18004 §7.8.3) is chosen.
    package init(
        bytes: [UInt8], errorCorrection: ErrorCorrectionLevel = .medium,
        versions: ClosedRange<Int> = 1...40, mask: Int? = nil
    ) throws {
        guard versions.lowerBound >= 1, versions.upperBound <= 40 else { throw EncodingError.invalidParameter("version must be 1…40") }
        if let mask, !(0...7).contains(mask) { throw EncodingError.invalidParameter("mask must be 0…7") }
        guard
            let version = versions.first(where: {
                QRCode.dataBits(version: $0, bytes: bytes.count) <= QRCode.dataCodewords(version: $0, errorCorrection) * 8
            })
        else {
            throw EncodingError.dataTooLong(bytes: bytes.count, maxVersion: versions.upperBound)
        }
        let codewords = QRCode.interleave(
            QRCode.dataCodewords(bytes, version: version, errorCorrection),
            version: version, errorCorrection)
        var matrix = QRMatrix(version: version)
        matrix.placeCodewords(codewords)
        let candidates = mask.map { [$0] } ?? Array(0..<8)
        // The lowest penalty wins; on a tie, the lower mask number.
        let scored = candidates.map { (mask: $0, matrix: matrix.masked($0, errorCorrection)) }
            .map { (mask: $0.mask, matrix: $0.matrix, score: QRMatrix.penalty($0.matrix)) }
        let best = scored.min { $0.score < $1.score }!
        let chosen = best.mask
        let final = best.matrix
        self.version = version
        self.errorCorrection = errorCorrection
        self.mask = chosen
        self.size = final.size
        self.modules = final.modules
    }

    /// Whether the module at column `x`, row `y` is dark; outside the symbol
    /// (the quiet zone) is light.
    package subscript(x: Int, y: Int) -> Bool {
        guard (0..<size).contains(x), (0..<size).contains(y) else { return false }
        return modules[y * size + x]
    }

    // MARK: capacity

    /// Bits the byte-mode segment takes: mode, count, data.
    static func dataBits(version: Int, bytes: Int) -> Int {
        let countBits = version <= 9 ? 8 : 16
        guard bytes < 1 << countBits else { return Int.max }
        return 4 + countBits + 8 * bytes
    }

    /// Modules left for data and error correction after the function patterns.
    static func rawDataModules(version: Int) -> Int {
        var result = (16 * version + 128) * version + 64
        if version >= 2 {
            let alignments = version / 7 + 2
            result -= (25 * alignments - 10) * alignments - 55
            if version >= 7 { result -= 36 }
        }
        return result
    }

    static func dataCodewords(version: Int, _ level: ErrorCorrectionLevel) -> Int {
        rawDataModules(version: version) / 8 - level.eccPerBlock(version: version) * level.blocks(version: version)
    }

    // MARK: encoding

    /// Mode, count, data, terminator and padding, as codewords.
    static func dataCodewords(_ bytes: [UInt8], version: Int, _ level: ErrorCorrectionLevel) -> [UInt8] {
        var bits = BitBuffer()
        bits.append(0b0100, count: 4)
        bits.append(bytes.count, count: version <= 9 ? 8 : 16)
        for byte in bytes { bits.append(Int(byte), count: 8) }
        let capacity = dataCodewords(version: version, level) * 8
        bits.append(0, count: min(4, capacity - bits.count))
        bits.append(0, count: (8 - bits.count % 8) % 8)
        var codewords = bits.bytes
        var pad: UInt8 = 0xEC
        while codewords.count * 8 < capacity {
            codewords.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }
        return codewords
    }

    /// Splits data into blocks, adds each block's error correction, and
    /// interleaves them (ISO/IEC 18004 §7.6).
    static func interleave(_ data: [UInt8], version: Int, _ level: ErrorCorrectionLevel) -> [UInt8] {
        let blockCount = level.blocks(version: version)
        let eccLength = level.eccPerBlock(version: version)
        let rawCodewords = rawDataModules(version: version) / 8
        let shortBlocks = blockCount - rawCodewords % blockCount
        let shortLength = rawCodewords / blockCount - eccLength
        let rs = ReedSolomon(degree: eccLength)
        var dataBlocks: [[UInt8]] = []
        var eccBlocks: [[UInt8]] = []
        var offset = 0
        for index in 0..<blockCount {
            let length = shortLength + (index < shortBlocks ? 0 : 1)
            let block = Array(data[offset..<offset + length])
            offset += length
            dataBlocks.append(block)
            eccBlocks.append(rs.remainder(of: block))
        }
        var result: [UInt8] = []
        for column in 0...shortLength {
            for block in dataBlocks where column < block.count { result.append(block[column]) }
        }
        for column in 0..<eccLength {
            for block in eccBlocks { result.append(block[column]) }
        }
        return result
    }
}

/// Bits, most significant first.
struct BitBuffer {
    private(set) var bits: [Bool] = []

    var count: Int { bits.count }

    mutating func append(_ value: Int, count: Int) {
        guard count > 0 else { return }
        for shift in stride(from: count - 1, through: 0, by: -1) { bits.append((value >> shift) & 1 == 1) }
    }

    var bytes: [UInt8] {
        stride(from: 0, to: bits.count, by: 8).map { start in
            (0..<8).reduce(UInt8(0)) { byte, offset in
                let index = start + offset
                return byte << 1 | (index < bits.count && bits[index] ? 1 : 0)
            }
        }
    }
}
