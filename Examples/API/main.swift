// An API protected by AuthFlowHummingbird: what the middleware's interop tests
// run (Tests/Interop/test_api_middleware.py), and a starting point for your own.
// Every option of the middleware a user would turn on is a flag; README.md
// shows each with the command that exercises it.
//
//   example-api --issuer URL [--port N] [--path /api] [--scope S]...
//               [--route NAME=SCOPE[,SCOPE]...]... [--require-dpop] [--dpop-nonce SECONDS]
//               [--introspection-client-id ID] [--introspection-endpoint URL] [--introspection-requires-aud]
//               [--back-channel-logout PATH --logout-client-id ID] [--resource-name NAME]
//
// Listens on 127.0.0.1:N (0 picks a free port); its resource identifier is
// http://127.0.0.1:N/api. `GET /api/me` (and `GET /api/NAME` for each --route)
// answers the verified token as JSON. The protected resource metadata (RFC 9728)
// is served at /.well-known/oauth-protected-resource/api. The introspection
// secret comes only from EXAMPLE_API_CLIENT_SECRET (never from the command
// line, where `ps` shows it); EXAMPLE_API_CLIENT_ID and
// EXAMPLE_API_INTROSPECTION_ENDPOINT may stand for the two flags. Prints
// `resource: URL` then `ready` on stdout, and `logout: sub=… sid=…` for each
// back-channel logout it accepts.
//
// On Linux it uses FoundationEssentials alone, as the engine and the middleware
// do: built with the AsyncHTTPClient trait it links neither FoundationNetworking
// nor the rest of swift-corelibs-foundation (docs/performance.md, "Size").
#if Hummingbird // the Hummingbird package trait
import AuthFlow
import AuthFlowHummingbird
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals

struct Arguments {
    var issuer: Issuer?
    var port = 0
    var path = "/api"
    var scopes: [String] = []
    /// `--route NAME=SCOPES`: a route `GET path/NAME` that needs these scopes besides `--scope`'s.
    var routes: [(name: String, scopes: [String])] = []
    var requiresDPoP = false
    var dpopNonceLifetime: TimeInterval?
    var introspectionClientID: String?
    var introspectionEndpoint: URL?
    /// `--introspection-requires-aud`: an introspection answer without `aud` is refused.
    var introspectionRequiresAudience = false
    var logoutPath: String?
    var logoutClientID: String?
    var resourceName: String?

    init(_ arguments: [String], environment: [String: String]) throws {
        var iterator = arguments.makeIterator()
        func value(_ flag: String) throws -> String {
            guard let next = iterator.next(), !next.isEmpty else { throw ExampleAPIError("\(flag) needs a value") }
            return next
        }
        while let argument = iterator.next() {
            switch argument {
            case "--issuer": issuer = try Issuer(value(argument))
            case "--port": port = Int(try value(argument)) ?? -1
            case "--path": path = try value(argument)
            case "--scope": scopes.append(try value(argument))
            case "--route":
                let text = try value(argument)
                guard let equals = text.firstIndex(of: "="), equals != text.startIndex,
                    !text[..<equals].contains("/")
                else { throw ExampleAPIError("--route takes NAME=SCOPE[,SCOPE]") }
                let scopes = text[text.index(after: equals)...].split(separator: ",").map(String.init)
                guard !scopes.isEmpty else { throw ExampleAPIError("--route \(text[..<equals]) names no scope") }
                routes.append((String(text[..<equals]), scopes))
            case "--require-dpop": requiresDPoP = true
            case "--dpop-nonce":
                guard let seconds = TimeInterval(try value(argument)), seconds > 0 else {
                    throw ExampleAPIError("--dpop-nonce takes a number of seconds")
                }
                dpopNonceLifetime = seconds
            case "--introspection-client-id": introspectionClientID = try value(argument)
            case "--introspection-endpoint":
                guard let url = URL(string: try value(argument)) else { throw ExampleAPIError("--introspection-endpoint takes a URL") }
                introspectionEndpoint = url
            case "--introspection-requires-aud": introspectionRequiresAudience = true
            case "--back-channel-logout": logoutPath = try value(argument)
            case "--logout-client-id": logoutClientID = try value(argument)
            case "--resource-name": resourceName = try value(argument)
            default: throw ExampleAPIError("unknown argument \(argument)")
            }
        }
        introspectionClientID = introspectionClientID ?? environment["EXAMPLE_API_CLIENT_ID"]
        introspectionEndpoint = introspectionEndpoint ?? environment["EXAMPLE_API_INTROSPECTION_ENDPOINT"].flatMap(URL.init(string:))
        guard issuer != nil else { throw ExampleAPIError("--issuer URL is required") }
        guard (0...65535).contains(port), path.hasPrefix("/") else { throw ExampleAPIError("bad --port or --path") }
        guard (logoutPath == nil) == (logoutClientID == nil), logoutPath.map({ $0.hasPrefix("/") }) ?? true else {
            throw ExampleAPIError("--back-channel-logout /PATH and --logout-client-id ID go together")
        }
        if introspectionClientID != nil, environment["EXAMPLE_API_CLIENT_SECRET"]?.isEmpty ?? true {
            throw ExampleAPIError("introspection needs the API's client secret in EXAMPLE_API_CLIENT_SECRET")
        }
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

/// One line on stdout, at once (a test reads it while the API runs).
func say(_ line: String) {
    print(line)
    fflush(nil)
}

func run() async throws {
    let environment = ProcessInfo.processInfo.environment
    let arguments = try Arguments(Array(CommandLine.arguments.dropFirst()), environment: environment)
    // Bind first: the port is part of the resource identifier, so what needs the
    // resource (the middleware, the metadata, the logout route) is made after discovery.
    let (ports, continuation) = AsyncStream<Int>.makeStream()
    let box = ResourceBox()
    let router = Router(context: ProtectedRequestContext.self)
    router.group(RouterPath(arguments.path))
        .add(middleware: LateMiddleware(box: box, scopes: arguments.scopes))
        .get("me") { _, context in describe(context.accessToken) }
    for route in arguments.routes {
        router.group(RouterPath(arguments.path + "/" + route.name))
            .add(middleware: LateMiddleware(box: box, scopes: arguments.scopes + route.scopes))
            .get { _, context in describe(context.accessToken) }
    }
    router.get(RouterPath("/.well-known/oauth-protected-resource" + arguments.path)) { request, context in
        try await box.forward(request, context)
    }
    if let logoutPath = arguments.logoutPath {
        router.post(RouterPath(logoutPath)) { request, context in try await box.forward(request, context) }
    }
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
    options.scopesSupported = Array(Set(arguments.scopes + arguments.routes.flatMap(\.scopes))).sorted()
    options.requiresDPoP = arguments.requiresDPoP
    options.dpopNonceLifetime = arguments.dpopNonceLifetime
    options.resourceName = arguments.resourceName
    if let id = arguments.introspectionClientID, let secret = environment["EXAMPLE_API_CLIENT_SECRET"] {
        options.introspectionClient = (id: id, secret: secret)
        options.introspectionEndpoint = arguments.introspectionEndpoint
        options.introspectionRequiresAudience = arguments.introspectionRequiresAudience
    }
    let resourceURL = URL(string: "http://127.0.0.1:\(port)\(arguments.path)")!
    let resource = try await ProtectedResource.discover(
        issuer: arguments.issuer!, resource: resourceURL, options: options, logger: logger)
    let late = Router(context: ProtectedRequestContext.self)
    late.addProtectedResourceMetadata(resource)
    if let logoutPath = arguments.logoutPath, let clientID = arguments.logoutClientID {
        late.addBackChannelLogout(RouterPath(logoutPath), resource: resource, clientID: clientID) { logout in
            // An API would end the sessions of this user (sub) or this session (sid) here.
            say("logout: sub=\(logout.subject ?? "-") sid=\(logout.sessionID ?? "-")")
        }
    }
    await box.set(resource, late.buildResponder())
    say("resource: \(resourceURL.absoluteString)\nready")
    try await running
}

/// The resource, and the routes made with it, once discovery (which needs the port) has made it.
actor ResourceBox {
    private var resource: ProtectedResource?
    private var responder: RouterResponder<ProtectedRequestContext>?

    func set(_ resource: ProtectedResource, _ responder: RouterResponder<ProtectedRequestContext>) {
        self.resource = resource
        self.responder = responder
    }

    func get() -> ProtectedResource? { resource }

    private func currentResponder() -> RouterResponder<ProtectedRequestContext>? { responder }

    /// Answers with the routes made after discovery; 503 before. The routes run
    /// outside the actor, so requests are not serialised.
    nonisolated func forward(_ request: Request, _ context: ProtectedRequestContext) async throws -> Response {
        guard let responder = await currentResponder() else { return Response(status: .serviceUnavailable) }
        return try await responder.respond(to: request, context: context)
    }
}

struct LateMiddleware: RouterMiddleware {
    typealias Context = ProtectedRequestContext
    let box: ResourceBox
    let scopes: [String]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let resource = await box.get() else { return Response(status: .serviceUnavailable) }
        return try await AccessTokenMiddleware<Context>(resource, requiredScopes: scopes).handle(request, context: context, next: next)
    }
}

do {
    try await run()
} catch {
    var message = "example-api: \(error)\n"
    message.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    exit(1)
}
#else
import Foundation

FileHandle.standardError.write(Data("example-api needs the Hummingbird trait: swift build --traits Hummingbird (or CLI)\n".utf8))
exit(2)
#endif
