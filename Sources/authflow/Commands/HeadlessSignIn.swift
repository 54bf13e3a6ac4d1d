#if CLI // the CLI package trait
import AuthFlow
import AuthFlowLoopback
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Signing in where no browser will open: over SSH, or on a Linux machine
/// without a display (and no `$BROWSER`), or with `--no-browser`.
///
/// - When the session is headless (not with `--no-browser` alone), the
///   device grant is used if the provider publishes a device authorization
///   endpoint and accepts it for the client; otherwise, as with
///   `--no-browser`:
/// - the authorization URL is printed, and the sign-in finishes either on
///   the loopback listener (a browser on this machine, or a forwarded port)
///   or with the redirected URL pasted back — on standard input for
///   `authflow login`, on the terminal (`/dev/tty`) for a credential helper,
///   whose standard input is its client's protocol. A pasted line is taken
///   when it carries this sign-in's `state`, exactly as the listener takes a
///   request, and then goes through the same validation
///   (``AuthFlow/AuthorizationRequest/validateCallback(_:)``: redirect URI,
///   `state`, `iss`, error or code); the first one taken ends the wait, and
///   the listener closes, so the response is used once.
/// - The wait is bounded by `--browser-timeout` either way.
enum HeadlessSignIn {
    /// Whether pasted URLs are read from the terminal instead of standard input (credential helpers).
    @TaskLocal static var pasteFromTerminal = false

    /// Why no browser will open, or nil when one may: `$BROWSER` set means
    /// one will; an SSH session (`SSH_CONNECTION`, `SSH_TTY`) or, on Linux,
    /// no `DISPLAY` and no `WAYLAND_DISPLAY` means none will.
    static func reason(_ environment: (String) -> String? = ProfileLocation.environment) -> String? {
        func set(_ name: String) -> Bool { !(environment(name) ?? "").trimmingWhitespace().isEmpty }
        if set("BROWSER") { return nil }
        if set("SSH_CONNECTION") || set("SSH_TTY") { return "this is an SSH session" }
        #if os(Linux)
        if !set("DISPLAY") && !set("WAYLAND_DISPLAY") { return "there is no display" }
        #endif
        return nil
    }

    /// The pasted `line` as the callback of `request`: a URL that carries its
    /// `state` (the same test the listener applies to a request), else nil.
    static func pasted(_ line: String, for request: AuthorizationRequest) -> URL? {
        let text = line.trimmingWhitespaceAndNewlines()
        guard text.utf8.count <= 16_384, let url = URL(string: text), url.scheme != nil,
            let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems,
            let state = items.first(where: { $0.name == "state" })?.value, request.matchesState(state)
        else { return nil }
        return url
    }
}

/// The user agent of `authflow login` and the credential helpers' sign-in,
/// for the engine's ``AuthFlow/OAuthClient/authorize(redirectURI:scopes:options:userAgent:)``:
/// prints the authorization URL, opens the system browser unless
/// ``opensBrowser`` is false, and waits for the loopback listener's
/// callback; where no browser opens (``HeadlessSignIn``), also for the
/// redirected URL pasted back. The first one taken ends the wait and closes
/// the listener, so the response is used once.
struct TerminalUserAgent: AuthorizationUserAgent {
    let browser: LoopbackUserAgent
    /// Whether the browser is opened; when not, a pasted redirect is taken too.
    let opensBrowser: Bool

    init(listener: LoopbackListener, timeout: TimeInterval, opensBrowser: Bool) {
        self.opensBrowser = opensBrowser
        browser = LoopbackUserAgent(listener: listener, timeout: timeout) { url in
            Output.stderr("Open this URL in a browser to sign in:\n\(url.absoluteString)")
            guard opensBrowser else { return }
            do { try SystemBrowser.open(url) } catch { Output.stderr("warning: \(error)") }
        }
    }

    /// The callback: from the listener, or, where no browser opens, a pasted URL that carries the request's state.
    func authorize(_ request: AuthorizationRequest) async throws -> URL {
        guard !opensBrowser else { return try await browser.authorize(request) }
        let lines = PastedLines.start(fromTerminal: HeadlessSignIn.pasteFromTerminal)
        return try await withThrowingTaskGroup(of: URL?.self) { group in
            group.addTask { try await browser.authorize(request) }
            group.addTask {
                Output.stderr(
                    "If the browser is on another machine, sign in there; it is then sent to \(request.redirectURI.absoluteString)?…, "
                        + "which fails to load. Paste that whole address here.")
                for await line in lines {
                    if let url = HeadlessSignIn.pasted(line, for: request) { return url }
                    if !line.trimmingWhitespace().isEmpty {
                        Output.stderr("That is not the address this sign-in was sent back to; paste the whole address from the browser.")
                    }
                }
                return nil // no more input: the listener may still get the redirect
            }
            while let next = try await group.next() {
                guard let url = next else { continue }
                group.cancelAll()
                await browser.listener.close()
                return url
            }
            throw AuthFlowError(.cancelled, "the sign-in ended without a redirect")
        }
    }
}

/// Lines typed or piped in, read on a thread of their own (a blocking read
/// must not hold one of the few threads Swift's tasks share).
enum PastedLines {
    static func start(fromTerminal: Bool) -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        let started = DetachedThread.start {
            let fd = fromTerminal ? open("/dev/tty", O_RDONLY | O_CLOEXEC) : STDIN_FILENO
            guard fd >= 0 else {
                continuation.finish()
                return
            }
            var line: [UInt8] = []
            var byte: UInt8 = 0
            while true {
                let count = read(fd, &byte, 1)
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }
                if byte == UInt8(ascii: "\n") {
                    continuation.yield(String(decoding: line, as: UTF8.self))
                    line.removeAll(keepingCapacity: true)
                } else if line.count < 16_385 {
                    line.append(byte)
                }
            }
            if !line.isEmpty { continuation.yield(String(decoding: line, as: UTF8.self)) }
            continuation.finish()
            if fromTerminal { close(fd) }
        }
        // No thread to read on (the process is at its thread limit): no lines.
        if !started { continuation.finish() }
        return stream
    }
}

extension Login {
    /// In a headless session or with `--no-browser` (not with a fixed
    /// `--port`, which is kept for a forwarded port), the device grant when
    /// the provider publishes its endpoint and accepts it for this client;
    /// nil to go on with the printed URL and the paste.
    func headlessDeviceSignIn(client: OAuthClient, scopes: [String], port: Int) async throws -> OAuthCredentials? {
        guard port == 0, let reason = noBrowser ? "--no-browser" : HeadlessSignIn.reason(),
            client.metadata.deviceAuthorizationEndpoint != nil
        else {
            return nil
        }
        let pending: PendingDeviceAuthorization
        do {
            pending = try await client.startDeviceAuthorization(scopes: scopes)
        } catch let error as AuthFlowError where error.category == .oauthError {
            Output.stderr(
                "No browser will open here (\(reason)), and the provider refused the device grant for this client "
                    + "(\(TerminalText.field(error.oauth?.error ?? error.message))); sign in with the link instead.")
            return nil
        }
        Output.stderr("No browser will open here (\(reason)): sign in on another device.")
        Output.stderr(DeviceInstructions(pending: pending, drawQR: !noQr).text)
        return try await pending.credentials()
    }
}
#endif
