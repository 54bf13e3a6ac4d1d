/// Where the session bus listens, from `DBUS_SESSION_BUS_ADDRESS` (the D-Bus
/// Specification, "Server Addresses"): the first `unix:path=` or
/// `unix:abstract=` address in the list; other keys (`guid`) and other
/// transports are skipped.
enum DBusAddress: Equatable, Sendable {
    case path(String)
    case abstract(String)

    /// Parses `text`; nil when it names no Unix socket this client can use.
    init?(_ text: String) {
        for address in text.split(separator: ";") {
            guard address.hasPrefix("unix:") else { continue }
            var found: DBusAddress?
            for pair in address.dropFirst(5).split(separator: ",") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, let value = Self.unescape(parts[1]), !value.isEmpty else { continue }
                switch parts[0] {
                case "path": found = .path(value)
                case "abstract": found = .abstract(value)
                default: continue
                }
            }
            if let found {
                self = found
                return
            }
        }
        return nil
    }

    /// Undoes the `%XX` escapes the address syntax allows; nil for a bad escape.
    private static func unescape(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next(), let low = iterator.next(),
                let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            else { return nil }
            bytes.append(value)
        }
        let text = String(decoding: bytes, as: UTF8.self)
        return text.utf8.elementsEqual(bytes) ? text : nil
    }
}
