#if CLI // the CLI package trait
import AuthFlow
import AuthFlowLoopback
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TerminalQR

/// `authflow login --device`: the device authorization grant (RFC 8628).
/// The user code, the verification URL and a QR code go to stderr, so
/// stdout keeps only the result.
extension Login {
    func deviceSignIn(client: OAuthClient, scopes: [String]) async throws -> OAuthCredentials {
        let endpoint = try ProviderOptions.endpoint("--device-authorization-endpoint", deviceAuthorizationEndpoint)
        let pending = try await client.startDeviceAuthorization(scopes: scopes, endpoint: endpoint)
        Output.stderr(DeviceInstructions(pending: pending, drawQR: !noQr).text)
        if !noBrowser, HeadlessSignIn.reason() == nil {
            do { try SystemBrowser.open(pending.verificationURIComplete ?? pending.verificationURI) } catch {
                Output.stderr("warning: \(error)")
            }
        }
        return try await pending.credentials()
    }
}

/// What the user reads on the terminal: where to go, the code, a QR code.
struct DeviceInstructions {
    let pending: PendingDeviceAuthorization
    let drawQR: Bool

    var text: String {
        var lines = [
            "To sign in, open this URL on any device:",
            "",
            "    \(pending.verificationURI.absoluteString)",
            "",
            "and enter the code:",
            "",
            "    \(TerminalText.field(pending.userCode))",
            "",
        ]
        let link = pending.verificationURIComplete ?? pending.verificationURI
        if drawQR, let code = try? QRCode(text: link.absoluteString, errorCorrection: .medium) {
            lines.append("Or scan this QR code (it opens \(link.absoluteString)):")
            lines.append(TerminalRenderer().render(code))
            lines.append("")
        } else if let complete = pending.verificationURIComplete {
            lines.append("Or open \(complete.absoluteString) to skip typing the code.")
            lines.append("")
        }
        let minutes = max(1, (pending.response.expiresIn + 59) / 60)
        lines.append("Waiting for approval (the code expires in \(minutes) minute\(minutes == 1 ? "" : "s"))…")
        return lines.joined(separator: "\n")
    }
}
#endif
