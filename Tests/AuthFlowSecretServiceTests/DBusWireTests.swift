import AuthFlowTestSupport
import Testing

@testable import AuthFlowSecretService

/// The D-Bus wire parser against bad input: each kind of damage yields its
/// own typed error, never a crash, a hang or a silent success.
@Suite("D-Bus wire format")
struct DBusWireTests {
    /// A reply carrying every shape the Secret Service calls use.
    static let sample = DBusMessage(
        kind: .methodReturn, serial: 7, replySerial: 3, sender: ":1.1",
        body: [
            .structure([
                .objectPath("/org/freedesktop/secrets/session/s1"), .bytes([]), .bytes(Array("secret".utf8)), .string("text/plain"),
            ]),
            .array(.objectPath, [.objectPath("/a/b"), .objectPath("/c")]),
            .array(
                .dictEntry(.string, .variant),
                [.dictEntry(.string("Label"), .variant(.string("x"))), .dictEntry(.string("n"), .variant(.uint64(9)))]),
            .boolean(true), .int16(-2), .uint32(42), .int64(-5), .double(1.5), .signature("a{sv}"),
            .stringDictionary([("application", "authflow"), ("profile", "default")]),
        ])

    /// The sample's bytes, with its body offset.
    static func encoded(_ message: DBusMessage = sample) -> (bytes: [UInt8], body: Int) {
        let bytes = message.encoded()
        return (bytes, bytes.count - Int(bytes[4]) - Int(bytes[5]) << 8)
    }

    static func decodeError(_ bytes: [UInt8]) -> DBusWireError? {
        do throws(DBusWireError) {
            _ = try DBusMessage.decode(bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test("a message survives encoding and decoding unchanged")
    func roundTrip() throws {
        #expect(try DBusMessage.decode(Self.sample.encoded()) == Self.sample)
        let call = DBusMessage(
            kind: .methodCall, flags: DBusMessage.noAutoStart, serial: 1, path: "/org/freedesktop/secrets",
            interface: "org.freedesktop.Secret.Service", member: "OpenSession", destination: "org.freedesktop.secrets",
            body: [.string("plain"), .variant(.string(""))])
        #expect(try DBusMessage.decode(call.encoded()) == call)
    }

    @Test("every truncation of a message is .truncated")
    func truncated() {
        let (bytes, _) = Self.encoded()
        for length in 0..<bytes.count {
            #expect(Self.decodeError(Array(bytes.prefix(length))) == .truncated, "length \(length)")
        }
    }

    @Test("a message declaring more than the bound is refused from its header alone")
    func oversized() {
        var header = Array(Self.encoded().bytes.prefix(16))
        let headerEnd = (16 + Int(header[12]) + Int(header[13]) << 8 + 7) / 8 * 8
        header[4...7] = [0xFF, 0xFF, 0xFF, 0x7F]
        #expect(throws: DBusWireError.tooLarge(headerEnd + 0x7FFF_FFFF)) { _ = try DBusMessage.frameLength(header[...]) }
        header[4...7] = [0, 0, 0x10, 0] // exactly 1 MiB of body: over the bound with the header
        #expect(Self.decodeError(header) == .tooLarge(headerEnd + 0x10_0000))
    }

    @Test("garbage in the fixed header is named: endianness, version, message type")
    func garbageHeader() {
        var bytes = Self.encoded().bytes
        bytes[0] = UInt8(ascii: "X")
        #expect(Self.decodeError(bytes) == .badEndianness(UInt8(ascii: "X")))
        bytes = Self.encoded().bytes
        bytes[3] = 2
        #expect(Self.decodeError(bytes) == .badVersion(2))
        bytes = Self.encoded().bytes
        bytes[1] = 9
        #expect(Self.decodeError(bytes) == .badMessageType(9))
        #expect(Self.decodeError(Self.encoded().bytes + [0]) == .trailingBytes)
    }

    @Test("bad values in the body: boolean, string, padding, array length")
    func badBody() {
        func damaged(_ body: [DBusValue], at offset: Int, to value: UInt8) -> DBusWireError? {
            var (bytes, start) = Self.encoded(DBusMessage(kind: .methodReturn, serial: 1, replySerial: 1, body: body))
            bytes[start + offset] = value
            return Self.decodeError(bytes)
        }
        #expect(damaged([.boolean(true)], at: 0, to: 2) == .badBoolean)
        #expect(damaged([.string("ab")], at: 4, to: 0xFF) == .badString)
        #expect(damaged([.string("ab")], at: 5, to: 0) == .badString)
        #expect(damaged([.string("ab")], at: 6, to: 1) == .badString)
        #expect(damaged([.byte(1), .uint32(5)], at: 1, to: 1) == .badPadding)
        #expect(damaged([.array(.byte, [.byte(1), .byte(2)])], at: 0, to: 100) == .truncated)
        #expect(damaged([.objectPath("/a")], at: 5, to: UInt8(ascii: "/")) == .badString)
    }

    @Test("signatures: too deep, a container as a dictionary key, unknown codes, empty structures")
    func signatures() throws {
        #expect(throws: DBusWireError.nestingTooDeep) { _ = try DBusType.parse(signature: String(repeating: "a", count: 33) + "y") }
        #expect(throws: DBusWireError.nestingTooDeep) {
            _ = try DBusType.parse(signature: String(repeating: "(", count: 33) + "y" + String(repeating: ")", count: 33))
        }
        for bad in ["a{vs}", "a{s}", "a{sss}", "()", "(y", "z", "h", "a", String(repeating: "y", count: 256)] {
            #expect(throws: DBusWireError.badSignature, "\(bad)") { _ = try DBusType.parse(signature: bad) }
        }
        #expect(
            try DBusType.parse(signature: "a{sv}(oayays)ao") == [
                .array(.dictEntry(.string, .variant)), .structure([.objectPath, .array(.byte), .array(.byte), .string]),
                .array(.objectPath),
            ])
    }

    @Test("a variant whose value nests too deep is refused")
    func deepVariant() {
        var value = DBusValue.byte(1)
        for _ in 0..<70 { value = .variant(value) }
        let bytes = DBusMessage(kind: .methodReturn, serial: 1, replySerial: 1, body: [value]).encoded()
        #expect(Self.decodeError(bytes) == .nestingTooDeep)
    }

    @Test("required header fields: a method call without a member, a reply without its serial")
    func header() {
        #expect(Self.decodeError(DBusMessage(kind: .methodCall, serial: 1, path: "/").encoded()) == .badHeader)
        #expect(Self.decodeError(DBusMessage(kind: .methodReturn, serial: 1).encoded()) == .badHeader)
        #expect(Self.decodeError(DBusMessage(kind: .error, serial: 1, replySerial: 1).encoded()) == .badHeader)
        #expect(Self.decodeError(DBusMessage(kind: .methodReturn, serial: 0, replySerial: 1).encoded()) == .badHeader)
    }

    @Test("random bytes behind a valid header end in a typed error or a message, never a crash")
    func randomBodies() {
        var generator = SeededGenerator(state: 0xA17F)
        let (bytes, start) = Self.encoded()
        for _ in 0..<2000 {
            var copy = bytes
            for _ in 0..<Int(generator.next() % 8 + 1) {
                let index = start - 40 + Int(generator.next() % UInt64(copy.count - start + 40))
                copy[index] = UInt8(truncatingIfNeeded: generator.next())
            }
            _ = Self.decodeError(copy)
        }
    }

    @Test("bus addresses: unix:path=, unix:abstract=, escapes, other keys and transports skipped")
    func addresses() {
        #expect(DBusAddress("unix:path=/run/user/1000/bus") == .path("/run/user/1000/bus"))
        #expect(DBusAddress("unix:abstract=/tmp/dbus-x,guid=0123") == .abstract("/tmp/dbus-x"))
        #expect(DBusAddress("unix:guid=1,path=/tmp/a%20b") == .path("/tmp/a b"))
        #expect(DBusAddress("tcp:host=127.0.0.1,port=1;unix:path=/b") == .path("/b"))
        #expect(DBusAddress("tcp:host=127.0.0.1,port=1") == nil)
        #expect(DBusAddress("unix:path=/a%zz") == nil)
        #expect(DBusAddress("") == nil)
    }
}
