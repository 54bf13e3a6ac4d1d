#if Hummingbird // the Hummingbird package trait
public import Hummingbird

/// A Hummingbird request context that carries the verified access token:
/// ``AccessTokenMiddleware`` sets ``accessToken`` before a protected route
/// runs. Use ``ProtectedRequestContext``, or add the property to your own context.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
public protocol AccessTokenRequestContext: RequestContext {
    /// The request's verified access token; nil until the middleware verified one.
    var accessToken: VerifiedAccessToken? { get set }
}

/// A ready-made ``AccessTokenRequestContext``.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
public struct ProtectedRequestContext: AccessTokenRequestContext {
    /// Hummingbird's own state of the request.
    public var coreContext: CoreRequestContextStorage
    /// The request's verified access token.
    public var accessToken: VerifiedAccessToken?

    /// A context for a new request.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }
}
#endif
