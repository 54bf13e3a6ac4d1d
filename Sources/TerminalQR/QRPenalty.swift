/// The mask penalty score of ISO/IEC 18004 §7.8.3: the mask with the lowest
/// score is used.
extension QRMatrix {
    /// N1 + N2 + N3 + N4 for the whole symbol.
    static func penalty(_ matrix: QRMatrix) -> Int {
        let size = matrix.size
        var score = 0
        var lines: [[Bool]] = []
        for y in 0..<size { lines.append((0..<size).map { matrix[$0, y] }) }
        for x in 0..<size { lines.append((0..<size).map { matrix[x, $0] }) }
        for line in lines {
            score += runPenalty(line) + finderPenalty(line)
        }
        // N2: every 2×2 block of one colour.
        for y in 0..<(size - 1) {
            for x in 0..<(size - 1) {
                let colour = matrix[x, y]
                if colour == matrix[x + 1, y], colour == matrix[x, y + 1], colour == matrix[x + 1, y + 1] { score += 3 }
            }
        }
        // N4: 10 points for every 5 % the dark share is away from 50 %.
        let dark = matrix.modules.lazy.filter { $0 }.count
        let total = size * size
        let steps = (abs(dark * 20 - total * 10) + total - 1) / total - 1
        score += max(steps, 0) * 10
        return score
    }

    /// N1: 3 points for a run of five modules of one colour, 1 more for each
    /// further module.
    static func runPenalty(_ line: [Bool]) -> Int {
        var score = 0
        var run = 1
        for index in 1...line.count {
            if index < line.count, line[index] == line[index - 1] {
                run += 1
            } else {
                if run >= 5 { score += run - 2 }
                run = 1
            }
        }
        return score
    }

    /// N3: 40 points for each dark-light-dark×3-light-dark pattern with four
    /// light modules before or after it (outside the symbol counts as light).
    static func finderPenalty(_ line: [Bool]) -> Int {
        let pattern: [Bool] = [true, false, true, true, true, false, true]
        let padded = Array(repeating: false, count: 4) + line + Array(repeating: false, count: 4)
        var score = 0
        for start in 4...(padded.count - 11) {
            guard Array(padded[start..<start + 7]) == pattern else { continue }
            let before = padded[(start - 4)..<start].allSatisfy { !$0 }
            let after = padded[(start + 7)..<(start + 11)].allSatisfy { !$0 }
            if before || after { score += 40 }
        }
        return score
    }
}
