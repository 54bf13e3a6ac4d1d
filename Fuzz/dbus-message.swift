/// The CLI's D-Bus wire parser (`Sources/AuthFlowSecretService/Bus/`), which
/// reads what the session bus sends: any bytes end in a message or a typed
/// ``DBusWireError`` (the typed throw makes any other error impossible); a
/// message that decodes encodes (little-endian) to bytes that decode and
/// encode again to the same bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDBusMessage(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    // The frame length read from the first bytes, as the connection does before reading the rest.
    if let length = try? DBusMessage.frameLength(bytes[...]) {
        fuzzCheck(length <= DBusMessage.maximumSize && length >= DBusMessage.fixedHeaderSize, "a frame length out of bounds: \(length)")
    }
    let message: DBusMessage
    do throws(DBusWireError) {
        message = try DBusMessage.decode(bytes)
    } catch {
        _ = error
        return 0
    }
    let encoded = message.encoded()
    do {
        fuzzCheck(try DBusMessage.decode(encoded).encoded() == encoded, "a decoded message does not encode back the same")
    } catch {
        fuzzFailure("a decoded message, encoded again, does not decode: \(error)")
    }
    return 0
}
