/// Reads one HTTP/1.x request as its bytes arrive, within ``RequestLimits``.
///
/// Feed it whatever the socket delivers; it answers ``Step/needMore`` until
/// the request is complete or refused. A refusal comes as soon as the
/// request is known to break a rule, not once it has all arrived: a request
/// line longer than the target limit is refused before its end, header
/// lines are counted as they come, a body is measured against the limit
/// before it is read (`Content-Length`, chunk sizes) and only a body the
/// handler keeps is stored. The reader never holds more than the limits.
///
/// Bodies come with `Content-Length` or `Transfer-Encoding: chunked`; any
/// other transfer coding is 501, both framings at once (a smuggling
/// attempt) or differing lengths 400. Line folding is refused; a bare LF
/// ends a line like CRLF does.
struct RequestReader {
    enum Step {
        /// The request is incomplete.
        case needMore
        /// The request has arrived; `body` is the body when it was kept.
        case complete(RequestHead, body: [UInt8]?)
        /// The request is refused with this status; stop reading it.
        case refused(ResponseStatus)
    }

    private enum Phase {
        case requestLine
        case headerLines
        case fixedBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd(sawCR: Bool)
        case trailers
        case finished(Step)
    }

    /// Room in a request line beyond the target: method, spaces, version.
    private static let requestLineOverhead = 32
    /// The longest chunk-size line (size and extensions).
    private static let chunkSizeLineLimit = 1024
    /// Empty lines tolerated before the request line.
    private static let leadingEmptyLineLimit = 8

    private let limits: RequestLimits
    private let decide: (RequestHead) -> BodyHandling
    private var phase = Phase.requestLine
    private var line: [UInt8] = []
    private var leadingEmptyLines = 0
    private var headerBytes = 0
    private var headerCount = 0
    private var head = RequestHead(method: "", target: "")
    private var contentLength: Int?
    private var transferCodings: [String] = []
    private var chunked = false
    private var keep = false
    private var body: [UInt8] = []
    private var bodyBytes = 0

    /// A reader that asks `decide` what to do with a body once the head has arrived.
    init(limits: RequestLimits, decide: @escaping (RequestHead) -> BodyHandling) {
        self.limits = limits
        self.decide = decide
    }

    /// Reads the next bytes of the request.
    mutating func feed(_ bytes: ArraySlice<UInt8>) -> Step {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            switch phase {
            case .finished(let step):
                return step
            case .requestLine, .headerLines, .chunkSize, .trailers:
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\n") {
                    if line.last == UInt8(ascii: "\r") { line.removeLast() }
                    let step = lineEnded()
                    line.removeAll(keepingCapacity: true)
                    if let step { return finish(step) }
                } else {
                    line.append(byte)
                    if let status = lineOverLimit() { return finish(.refused(status)) }
                }
            case .fixedBody(let remaining):
                let count = min(remaining, bytes.endIndex - index)
                take(bytes[index..<index + count])
                index += count
                if remaining == count { return finish(complete()) }
                phase = .fixedBody(remaining: remaining - count)
            case .chunkData(let remaining):
                let count = min(remaining, bytes.endIndex - index)
                take(bytes[index..<index + count])
                index += count
                phase = remaining == count ? .chunkDataEnd(sawCR: false) : .chunkData(remaining: remaining - count)
            case .chunkDataEnd(let sawCR):
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\r"), !sawCR {
                    phase = .chunkDataEnd(sawCR: true)
                } else if byte == UInt8(ascii: "\n") {
                    phase = .chunkSize
                } else {
                    return finish(.refused(.badRequest))
                }
            }
        }
        if case .finished(let step) = phase { return step }
        return .needMore
    }

    private mutating func finish(_ step: Step) -> Step {
        phase = .finished(step)
        line = []
        return step
    }

    private mutating func take(_ bytes: ArraySlice<UInt8>) {
        if keep { body.append(contentsOf: bytes) }
    }

    private func complete() -> Step {
        .complete(head, body: keep ? body : nil)
    }

    /// A refusal when the line being read has grown past its limit.
    private func lineOverLimit() -> ResponseStatus? {
        switch phase {
        case .requestLine:
            guard line.count > limits.target + Self.requestLineOverhead else { return nil }
            // A method and a space, then more than the target limit: the target is too long.
            let space = line.prefix(Self.requestLineOverhead + 1).firstIndex(of: UInt8(ascii: " "))
            return space == nil ? .badRequest : .uriTooLong
        case .headerLines, .trailers:
            // A CR at the end may be the line's end (the empty line after the last field).
            let length = line.last == UInt8(ascii: "\r") ? line.count - 1 : line.count
            return headerBytes + length > limits.headers ? .badRequest : nil
        case .chunkSize:
            return line.count > Self.chunkSizeLineLimit ? .badRequest : nil
        default:
            return nil
        }
    }

    /// Handles a complete line; returns a step when the request is done or refused.
    private mutating func lineEnded() -> Step? {
        switch phase {
        case .requestLine:
            return requestLine()
        case .headerLines:
            if line.isEmpty { return endOfHead() }
            return headerLine().map { .refused($0) }
        case .chunkSize:
            return chunkSizeLine()
        case .trailers:
            if line.isEmpty { return complete() }
            return countField().map { .refused($0) }
        default:
            return nil
        }
    }

    private mutating func requestLine() -> Step? {
        if line.isEmpty {
            leadingEmptyLines += 1
            return leadingEmptyLines > Self.leadingEmptyLineLimit ? .refused(.badRequest) : nil
        }
        let parts = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3 else { return .refused(.badRequest) }
        let (method, target, version) = (parts[0], parts[1], parts[2])
        guard target.count <= limits.target else { return .refused(.uriTooLong) }
        guard !method.isEmpty, method.allSatisfy(Self.isTokenByte),
            !target.isEmpty, target.allSatisfy({ (0x21...0x7E).contains($0) }),
            version.elementsEqual("HTTP/1.1".utf8) || version.elementsEqual("HTTP/1.0".utf8)
        else {
            return .refused(.badRequest)
        }
        head = RequestHead(method: String(decoding: method, as: UTF8.self), target: String(decoding: target, as: UTF8.self))
        phase = .headerLines
        return nil
    }

    /// Counts a header or trailer field against the limits.
    private mutating func countField() -> ResponseStatus? {
        headerCount += 1
        headerBytes += line.count + 2
        return headerCount > limits.headerCount || headerBytes > limits.headers ? .badRequest : nil
    }

    private mutating func headerLine() -> ResponseStatus? {
        if let refusal = countField() { return refusal }
        // Obsolete line folding, a field without a name or with space before the colon.
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0,
            line[..<colon].allSatisfy(Self.isTokenByte)
        else {
            return .badRequest
        }
        let value = Self.trimmed(line[(colon + 1)...])
        guard value.allSatisfy({ $0 == 0x09 || $0 >= 0x20 && $0 != 0x7F }) else { return .badRequest }
        let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
        switch name {
        case "content-length":
            guard !value.isEmpty, value.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
                return .badRequest
            }
            // More digits than any limit needs: too large, whatever the value.
            let length = value.count > 12 ? Int.max : Int(String(decoding: value, as: UTF8.self)) ?? Int.max
            if let contentLength, contentLength != length { return .badRequest }
            contentLength = length
        case "transfer-encoding":
            transferCodings += String(decoding: value, as: UTF8.self).split(separator: ",")
                .map { $0.trimmingSpaces().lowercased() }
        case "content-type":
            if head.contentType == nil { head.contentType = String(decoding: value, as: UTF8.self) }
        default:
            break
        }
        return nil
    }

    private mutating func endOfHead() -> Step? {
        if !transferCodings.isEmpty {
            guard contentLength == nil else { return .refused(.badRequest) }
            guard transferCodings == ["chunked"] else { return .refused(.notImplemented) }
            chunked = true
        } else if let contentLength, contentLength > limits.body {
            return .refused(.contentTooLarge)
        }
        switch decide(head) {
        case .refuse(let status):
            return .refused(status)
        case .keep:
            keep = true
        case .discard:
            keep = false
        }
        if chunked {
            phase = .chunkSize
            return nil
        }
        guard let contentLength, contentLength > 0 else { return complete() }
        if keep { body.reserveCapacity(contentLength) }
        phase = .fixedBody(remaining: contentLength)
        return nil
    }

    private mutating func chunkSizeLine() -> Step? {
        let sizeField = Self.trimmed(line.prefix { $0 != UInt8(ascii: ";") })
        guard !sizeField.isEmpty else { return .refused(.badRequest) }
        var size = 0
        for byte in sizeField {
            guard let digit = Self.hexValue(byte) else { return .refused(.badRequest) }
            size = size * 16 + digit
            // Checked digit by digit, so the value never overflows.
            if bodyBytes + size > limits.body { return .refused(.contentTooLarge) }
        }
        if size == 0 {
            phase = .trailers
            return nil
        }
        bodyBytes += size
        phase = .chunkData(remaining: size)
        return nil
    }

    /// `tchar` of RFC 9110 §5.6.2.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return Int(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return Int(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    /// `bytes` without leading and trailing spaces and tabs.
    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else {
            return []
        }
        return bytes[first...last]
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        let isSpace = { (character: Character) in character == " " || character == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return self[first...last]
    }
}
