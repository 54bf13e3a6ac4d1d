import AuthFlow

#if canImport(Glibc) || canImport(Musl)
public import FoundationEssentials
#else
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
#endif

/// Opens URLs in the user's browser: `$BROWSER` when set, else the
/// platform's opener (`open` on macOS, `xdg-open` elsewhere).
public enum SystemBrowser {
    /// The command line for `url`: `$BROWSER` split into words, with `%s`
    /// replaced by the URL, or the URL appended as the last argument. The URL
    /// is always one argument of its own; no shell ever sees it.
    public static func command(for url: URL, browser: String?) -> [String] {
        let link = url.absoluteString
        if let browser, !browser.trimmingWhitespace().isEmpty {
            let words = splitWords(browser)
            if words.contains(where: { $0.contains("%s") }) {
                return words.map { $0.replacing("%s", with: link) }
            }
            return words + [link]
        }
        #if os(macOS)
        return ["open", link]
        #else
        return ["xdg-open", link]
        #endif
    }

    /// Starts the browser named by `$BROWSER` (else the platform's opener)
    /// for `url` and returns without waiting for it.
    public static func open(_ url: URL) throws {
        try open(url, browser: ProcessInfo.processInfo.environment["BROWSER"])
    }

    /// Starts `browser` (a command line, as in `$BROWSER`) for `url` and
    /// returns without waiting for it. Its output goes to standard error, so
    /// standard output stays clean.
    public static func open(_ url: URL, browser: String?) throws {
        try open(url, browser: browser, quietly: false, exited: nil)
    }

    /// Starts the browser (`$BROWSER`, else the platform's opener) for `url`
    /// with its output discarded: `xdg-open` and many browsers print the URL
    /// they were given, which must not reach the terminal when the URL or
    /// what it leads to is not for display. Returns without waiting;
    /// `exited` is called with the exit status when the command ends with
    /// one other than 0 (the only failure worth reporting).
    public static func openQuietly(
        _ url: URL, browser: String? = ProcessInfo.processInfo.environment["BROWSER"],
        exited: (@Sendable (Int32) -> Void)? = nil
    ) throws {
        try open(url, browser: browser, quietly: true, exited: exited)
    }

    private static func open(_ url: URL, browser: String?, quietly: Bool, exited: (@Sendable (Int32) -> Void)?) throws {
        let arguments = command(for: url, browser: browser)
        #if canImport(Glibc) || canImport(Musl)
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(
                arguments, input: .null, output: quietly ? .null : .standardError, error: quietly ? .null : .inherit)
        } catch {
            throw AuthFlowError(.configuration, "could not start the browser \(arguments.first ?? "")")
        }
        if let exited {
            child.whenExited { status in
                if status != 0 { exited(status) }
            }
        } else {
            // Reaped all the same, so that no zombie outlives the browser.
            child.whenExited { _ in }
        }
        #elseif os(macOS) || os(Windows) || os(FreeBSD) || os(OpenBSD)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = quietly ? FileHandle.nullDevice : FileHandle.standardError
        if quietly { process.standardError = FileHandle.nullDevice }
        process.standardInput = FileHandle.nullDevice
        if let exited {
            process.terminationHandler = { ended in
                if ended.terminationStatus != 0 { exited(ended.terminationStatus) }
            }
        }
        do {
            try process.run()
        } catch {
            throw AuthFlowError(.configuration, "could not start the browser \(arguments.first ?? "")")
        }
        #else
        throw AuthFlowError(.configuration, "no system browser on this platform; use the platform's user agent")
        #endif
    }

    /// Splits a command line into words, honouring single and double quotes
    /// and backslash escapes.
    static func splitWords(_ line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
                inWord = true
                continue
            }
            if character == "\\" && quote != "'" {
                escaped = true
                continue
            }
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
                continue
            }
            if character == "'" || character == "\"" {
                quote = character
                inWord = true
                continue
            }
            if character.isWhitespace {
                if inWord {
                    words.append(current)
                    current = ""
                    inWord = false
                }
                continue
            }
            current.append(character)
            inWord = true
        }
        if inWord { words.append(current) }
        return words
    }
}
