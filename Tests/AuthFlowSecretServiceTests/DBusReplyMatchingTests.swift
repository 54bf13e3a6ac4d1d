#if os(Linux)
import Foundation
import Testing
@testable import AuthFlowSecretService

/// A reply is taken only from the peer the call went to and addressed to
/// this connection: another peer on the session bus that sends a reply with
/// the right serial first is skipped.
@Suite("D-Bus reply matching")
struct DBusReplyMatchingTests {
    static func reply(_ serial: UInt32, to call: UInt32, from sender: String, to destination: String, _ text: String) -> [UInt8] {
        DBusMessage(
            kind: .methodReturn, serial: serial, replySerial: call, destination: destination, sender: sender, body: [.string(text)]
        ).encoded()
    }

    @Test("forged replies with the right serial, from another sender or to another connection, are skipped")
    func forgedRepliesAreSkipped() throws {
        let bus = "org.freedesktop.DBus"
        var script = Array("OK 0123456789abcdef0123456789abcdef\r\n".utf8)
        // Hello (serial 1): a peer answers first with a name of its choosing.
        script += Self.reply(100, to: 1, from: ":1.99", to: ":1.42", ":1.666")
        script += Self.reply(1, to: 1, from: bus, to: ":1.42", ":1.42")
        // GetNameOwner of the secrets service (serial 2): a peer claims the name, then the bus answers.
        script += Self.reply(101, to: 2, from: ":1.99", to: ":1.42", ":1.99")
        script += Self.reply(2, to: 2, from: bus, to: ":1.42", ":1.7")
        // The call itself (serial 3): from the wrong peer, to the wrong connection, then the owner's reply.
        script += Self.reply(102, to: 3, from: ":1.99", to: ":1.42", "forged")
        script += Self.reply(103, to: 3, from: ":1.7", to: ":1.43", "misdirected")
        script += Self.reply(104, to: 3, from: ":1.7", to: ":1.42", "genuine")
        let fake = try DBusConnectionTests.FakeBus(reply: script)
        let connection = try DBusConnection(address: .path(fake.path), timeout: .seconds(2))
        #expect(connection.uniqueName == ":1.42")
        let answer = try connection.call(
            destination: "org.freedesktop.secrets", path: "/org/freedesktop/secrets", interface: "org.freedesktop.Secret.Service",
            member: "ReadAlias", [.string("default")])
        #expect(answer == [.string("genuine")])
    }

    @Test("a call whose only replies come from another peer times out instead of taking one")
    func onlyForgedRepliesTimeOut() throws {
        var script = Array("OK 0123456789abcdef0123456789abcdef\r\n".utf8)
        script += Self.reply(100, to: 1, from: ":1.99", to: ":1.42", ":1.666")
        let fake = try DBusConnectionTests.FakeBus(reply: script)
        #expect(throws: DBusConnectionError.timedOut("the reply to org.freedesktop.DBus.Hello")) {
            _ = try DBusConnection(address: .path(fake.path), timeout: .milliseconds(500))
        }
    }
}
#endif
