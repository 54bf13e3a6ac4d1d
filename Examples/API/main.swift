// An API protected by AuthFlowHummingbird: what the middleware's interop tests
// run (Tests/Interop/test_api_middleware.py), and a starting point for your own.
//
//   example-api --issuer URL [--port N] [--path /api] [--scope S]... [--require-dpop]
//
// Listens on 127.0.0.1:N (0 picks a free port); its resource identifier is
// http://127.0.0.1:N/api. The API's own client credentials, for introspecting
// opaque tokens, come from EXAMPLE_API_CLIENT_ID and EXAMPLE_API_CLIENT_SECRET
// (never from the command line, where `ps` shows them); EXAMPLE_API_INTROSPECTION_ENDPOINT
// names the endpoint when the issuer's metadata does not. Prints `resource: URL`
// then `ready` on stdout. `GET /api/me` answers the verified token as JSON.
#if Hummingbird // the Hummingbird package trait
import AuthFlow
import AuthFlowHummingbird
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals

struct Arguments {
    var issuer: URL?
    var port = 0
    var path = "/api"
    var scopes: [String] = []
    var requiresDPoP = false

    init(_ arguments: [String]) throws {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--issuer": issuer = iterator.next().flatMap(URL.init(string:))
            case "--port": port = iterator.next().flatMap(Int.init) ?? -1
            case "--path": path = iterator.next() ?? ""
            case "--scope": scopes.append(iterator.next() ?? "")
            case "--require-dpop": requiresDPoP = true
            default: throw ExampleAPIError("unknown argument \(argument)")
            }
        }
        guard issuer != nil else { throw ExampleAPIError("--issuer URL is required") }
        guard (0...65535).contains(port), path.hasPrefix("/") else { throw ExampleAPIError("bad --port or --path") }
    }
}

struct ExampleAPIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The verified token, as the route sees it.
func describe(_ token: VerifiedAccessToken?) -> String {
    guard let token else { return "{}" }
    let members: [String: JSONMemberValue] = [
        "sub": token.subject.map(JSONMemberValue.string) ?? .null,
        "client_id": token.clientID.map(JSONMemberValue.string) ?? .null,
        "scopes": .array(token.scopes.sorted().map(JSONMemberValue.string)),
        "jkt": token.dpopThumbprint.map(JSONMemberValue.string) ?? .null,
        "source": .string(token.source == .jwt ? "jwt" : "introspection"),
    ]
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    return String(decoding: (try? encoder.encode(members)) ?? Data(), as: UTF8.self)
}

func run() async throws {
    let arguments = try Arguments(Array(CommandLine.arguments.dropFirst()))
    let environment = ProcessInfo.processInfo.environment
    // Bind first: the port is part of the resource identifier.
    let (ports, continuation) = AsyncStream<Int>.makeStream()
    let box = ResourceBox()
    let router = Router(context: ProtectedRequestContext.self)
    router.group(RouterPath(arguments.path))
        .add(middleware: LateMiddleware(box: box, scopes: arguments.scopes))
        .get("me") { _, context in describe(context.accessToken) }
    var logger = Logger(label: "example-api")
    logger.logLevel = .warning
    let application = Application(
        router: router, configuration: .init(address: .hostname("127.0.0.1", port: arguments.port)),
        onServerRunning: { channel in
            continuation.yield(channel.localAddress?.port ?? 0)
            continuation.finish()
        }, logger: logger)
    let group = ServiceGroup(
        configuration: .init(services: [application], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
    async let running: Void = group.run()
    var iterator = ports.makeAsyncIterator()
    guard let port = await iterator.next(), port != 0 else { throw ExampleAPIError("the server did not start") }

    var options = ProtectedResourceOptions()
    options.scopesSupported = arguments.scopes
    options.requiresDPoP = arguments.requiresDPoP
    if let id = environment["EXAMPLE_API_CLIENT_ID"], let secret = environment["EXAMPLE_API_CLIENT_SECRET"] {
        options.introspectionClient = (id: id, secret: secret)
        options.introspectionEndpoint = environment["EXAMPLE_API_INTROSPECTION_ENDPOINT"].flatMap(URL.init(string:))
    }
    let resourceURL = URL(string: "http://127.0.0.1:\(port)\(arguments.path)")!
    let resource = try await ProtectedResource.discover(
        issuer: arguments.issuer!, resource: resourceURL, options: options, logger: logger)
    box.set(resource)
    FileHandle.standardOutput.write(Data("resource: \(resourceURL.absoluteString)\nready\n".utf8))
    try await running
}

/// The resource, once discovery (which needs the port) has made it.
final class ResourceBox: @unchecked Sendable {
    private let lock = NSLock()
    private var resource: ProtectedResource?
    func set(_ resource: ProtectedResource) { lock.withLock { self.resource = resource } }
    func get() -> ProtectedResource? { lock.withLock { resource } }
}

struct LateMiddleware: RouterMiddleware {
    typealias Context = ProtectedRequestContext
    let box: ResourceBox
    let scopes: [String]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let resource = box.get() else { return Response(status: .serviceUnavailable) }
        return try await AccessTokenMiddleware<Context>(resource, requiredScopes: scopes).handle(request, context: context, next: next)
    }
}

do {
    try await run()
} catch {
    FileHandle.standardError.write(Data("example-api: \(error)\n".utf8))
    exit(1)
}
#else
import Foundation

FileHandle.standardError.write(Data("example-api needs the Hummingbird trait: swift build --traits Hummingbird (or CLI)\n".utf8))
exit(2)
#endif
