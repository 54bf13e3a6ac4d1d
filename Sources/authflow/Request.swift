#if CLI // the CLI package trait
import AuthFlow
import ArgumentParser
import Foundation

/// `authflow request`: an authorized HTTP request with the profile's access
/// token — `Authorization: DPoP` and a fresh proof for a DPoP-bound profile,
/// `Authorization: Bearer` otherwise — refreshing once on a 401
/// `invalid_token`. The response body goes to stdout (headers first with -i).
struct Request: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send an authorized request with the profile's token and print the response body.",
        discussion: "A DPoP-bound profile gets a fresh DPoP proof per request; a bearer profile an Authorization: Bearer header.")

    @OptionGroup var profileOption: ProfileOption
    @Option(name: [.customShort("X"), .long], help: "The HTTP method (default GET, or POST with -d).")
    var method: String?
    @Option(name: [.customShort("H"), .customLong("header")], help: "A request header 'Name: value' (repeatable).")
    var headers: [String] = []
    @Option(name: [.customShort("d"), .long], help: "The request body (implies POST unless -X is given).")
    var data: String?
    @Flag(name: [.customShort("i"), .customLong("include")], help: "Print the status line and response headers before the body.")
    var include = false
    @Option(help: "Seconds the request may take.")
    var timeout: Double = 30
    @OptionGroup var verboseOption: VerboseOption
    @Argument(help: "The URL (https, or http on a loopback host).")
    var url: String

    func validate() throws {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), scheme == "https" || scheme == "http",
            parsed.host != nil
        else { throw ValidationError("the URL must be an absolute http(s) URL") }
        for header in headers {
            guard let colon = header.firstIndex(of: ":"), colon != header.startIndex else {
                throw ValidationError("-H takes 'Name: value'")
            }
            let name = header[..<colon].trimmingCharacters(in: .whitespaces)
            if ["authorization", "dpop"].contains(name.lowercased()) {
                throw ValidationError("-H \(name) is set by authflow from the profile")
            }
        }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
    }

    func run() async throws {
        do {
            try await send()
        } catch {
            throw Output.fail(error, json: false)
        }
    }

    private func send() async throws {
        let target = URL(string: url)!
        guard target.scheme?.lowercased() == "https" || ["127.0.0.1", "localhost", "::1", "[::1]"].contains(target.host ?? "") else {
            throw AuthFlowError(
                .configuration, "tokens are sent only over https (or http to a loopback host)", recovery: "use an https URL")
        }
        let session = try Profile.load(profileOption.profile).session(timeout: timeout, logger: verboseOption.makeLogger())
        var fields: [(name: String, value: String)] = headers.map { header in
            let colon = header.firstIndex(of: ":")!
            return (
                name: header[..<colon].trimmingCharacters(in: .whitespaces),
                value: header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            )
        }
        let verb = method ?? (data == nil ? "GET" : "POST")
        if data != nil, !fields.contains(where: { $0.name.lowercased() == "content-type" }) {
            fields.append((name: "Content-Type", value: "application/x-www-form-urlencoded"))
        }
        let request = HTTPTransportRequest(
            method: verb.uppercased(), url: target, headers: fields, body: data.map { Data($0.utf8) }, timeout: timeout)
        let response = try await session.send(request)
        if include {
            var head = "HTTP \(response.status)\n"
            for header in response.headers { head += "\(header.name): \(header.value)\n" }
            Output.stdout(head)
        }
        Output.raw(response.body)
        if !(200..<400).contains(response.status) {
            throw AuthFlowError(.invalidResponse, "the server answered HTTP \(response.status)")
        }
    }
}
#endif
