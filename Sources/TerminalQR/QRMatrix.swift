/// A QR symbol under construction: function patterns (finders, separators,
/// timing, alignment, version information, reserved format area), then the
/// codewords, then mask and format information.
struct QRMatrix {
    let version: Int
    let size: Int
    /// Row-major, `true` for dark.
    private(set) var modules: [Bool]
    /// Row-major, `true` where a function pattern is (never masked).
    private var isFunction: [Bool]

    init(version: Int) {
        self.version = version
        size = 17 + 4 * version
        modules = Array(repeating: false, count: size * size)
        isFunction = Array(repeating: false, count: size * size)
        drawFunctionPatterns()
    }

    subscript(x: Int, y: Int) -> Bool { modules[y * size + x] }

    private mutating func setFunction(_ x: Int, _ y: Int, _ dark: Bool) {
        modules[y * size + x] = dark
        isFunction[y * size + x] = true
    }

    // MARK: function patterns

    private mutating func drawFunctionPatterns() {
        for index in 0..<size {
            setFunction(6, index, index % 2 == 0)
            setFunction(index, 6, index % 2 == 0)
        }
        drawFinder(centerX: 3, centerY: 3)
        drawFinder(centerX: size - 4, centerY: 3)
        drawFinder(centerX: 3, centerY: size - 4)
        let positions = alignmentPositions
        let last = positions.count - 1
        for (i, x) in positions.enumerated() {
            for (j, y) in positions.enumerated() {
                // Not on top of the three finders.
                if (i == 0 && j == 0) || (i == 0 && j == last) || (i == last && j == 0) { continue }
                drawAlignment(centerX: x, centerY: y)
            }
        }
        drawFormatBits(0) // reserves the area; the real bits come with the mask
        drawVersionBits()
    }

    /// A 7×7 finder with its light separator (clipped at the edges).
    private mutating func drawFinder(centerX: Int, centerY: Int) {
        for dy in -4...4 {
            for dx in -4...4 {
                let x = centerX + dx
                let y = centerY + dy
                guard (0..<size).contains(x), (0..<size).contains(y) else { continue }
                let distance = max(abs(dx), abs(dy))
                setFunction(x, y, distance != 2 && distance != 4)
            }
        }
    }

    private mutating func drawAlignment(centerX: Int, centerY: Int) {
        for dy in -2...2 {
            for dx in -2...2 {
                setFunction(centerX + dx, centerY + dy, max(abs(dx), abs(dy)) != 1)
            }
        }
    }

    /// Centre coordinates of the alignment patterns (ISO/IEC 18004 Annex E).
    var alignmentPositions: [Int] {
        guard version > 1 else { return [] }
        let count = version / 7 + 2
        let step = version == 32 ? 26 : (version * 4 + count * 2 + 1) / (count * 2 - 2) * 2
        var result = [6]
        var position = size - 7
        var tail: [Int] = []
        for _ in 0..<(count - 1) {
            tail.insert(position, at: 0)
            position -= step
        }
        result += tail
        return result
    }

    /// Format information: level and mask, BCH(15,5), XOR 0x5412, both copies,
    /// and the dark module.
    mutating func drawFormatBits(_ bits: Int) {
        func bit(_ index: Int) -> Bool { (bits >> index) & 1 == 1 }
        for index in 0...5 { setFunction(8, index, bit(index)) }
        setFunction(8, 7, bit(6))
        setFunction(8, 8, bit(7))
        setFunction(7, 8, bit(8))
        for index in 9..<15 { setFunction(14 - index, 8, bit(index)) }
        for index in 0..<8 { setFunction(size - 1 - index, 8, bit(index)) }
        for index in 8..<15 { setFunction(8, size - 15 + index, bit(index)) }
        setFunction(8, size - 8, true)
    }

    static func formatBits(_ level: ErrorCorrectionLevel, mask: Int) -> Int {
        let data = level.formatBits << 3 | mask
        var remainder = data
        for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
        return (data << 10 | remainder) ^ 0x5412
    }

    /// Version information, BCH(18,6), for versions 7 and up.
    private mutating func drawVersionBits() {
        guard version >= 7 else { return }
        var remainder = version
        for _ in 0..<12 { remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25) }
        let bits = version << 12 | remainder
        for index in 0..<18 {
            let dark = (bits >> index) & 1 == 1
            let a = size - 11 + index % 3
            let b = index / 3
            setFunction(a, b, dark)
            setFunction(b, a, dark)
        }
    }

    // MARK: data

    /// Places codewords in the zigzag order: two-module columns from the
    /// right, alternately upwards and downwards, skipping the vertical timing
    /// pattern and function modules. Leftover modules stay light.
    mutating func placeCodewords(_ codewords: [UInt8]) {
        let totalBits = codewords.count * 8
        var bitIndex = 0
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            for vertical in 0..<size {
                for offset in 0..<2 {
                    let x = right - offset
                    let upward = (right + 1) & 2 == 0
                    let y = upward ? size - 1 - vertical : vertical
                    guard !isFunction[y * size + x], bitIndex < totalBits else { continue }
                    modules[y * size + x] = (codewords[bitIndex >> 3] >> (7 - UInt8(bitIndex & 7))) & 1 == 1
                    bitIndex += 1
                }
            }
            right -= 2
        }
    }

    /// A copy with data mask `mask` applied and the format bits drawn.
    func masked(_ mask: Int, _ level: ErrorCorrectionLevel) -> QRMatrix {
        var copy = self
        for y in 0..<size {
            for x in 0..<size where !isFunction[y * size + x] && Self.maskBit(mask, x: x, y: y) {
                copy.modules[y * size + x].toggle()
            }
        }
        copy.drawFormatBits(Self.formatBits(level, mask: mask))
        return copy
    }

    /// The eight mask conditions (ISO/IEC 18004 Table 10); x is the column.
    static func maskBit(_ mask: Int, x: Int, y: Int) -> Bool {
        switch mask {
        case 0: (x + y) % 2 == 0
        case 1: y % 2 == 0
        case 2: x % 3 == 0
        case 3: (x + y) % 3 == 0
        case 4: (x / 3 + y / 2) % 2 == 0
        case 5: x * y % 2 + x * y % 3 == 0
        case 6: (x * y % 2 + x * y % 3) % 2 == 0
        default: ((x + y) % 2 + x * y % 3) % 2 == 0
        }
    }
}
