// The SwiftUI declarations the Apple layer and the example app use, from
// Apple's documented Swift declarations. Bodies are never run (type-checking
// only); layout and rendering types behind the generic results are opaque.
import Foundation

/// https://developer.apple.com/documentation/swiftui/view
@available(iOS 13.0, macCatalyst 13.0, macOS 10.15, tvOS 13.0, visionOS 1.0, watchOS 6.0, *)
@MainActor @preconcurrency public protocol View {
    associatedtype Body: View
    @ViewBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

/// https://developer.apple.com/documentation/swiftui/scene
@available(iOS 14.0, macCatalyst 14.0, macOS 11.0, tvOS 14.0, visionOS 1.0, watchOS 7.0, *)
@MainActor @preconcurrency public protocol Scene {
    associatedtype Body: Scene
    @SceneBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

/// https://developer.apple.com/documentation/swiftui/app
@available(iOS 14.0, macCatalyst 14.0, macOS 11.0, tvOS 14.0, visionOS 1.0, watchOS 7.0, *)
@MainActor @preconcurrency public protocol App {
    associatedtype Body: Scene
    @SceneBuilder @MainActor @preconcurrency var body: Self.Body { get }
    @MainActor @preconcurrency init()
}

@available(iOS 14.0, macCatalyst 14.0, macOS 11.0, tvOS 14.0, visionOS 1.0, watchOS 7.0, *)
extension App {
    /// https://developer.apple.com/documentation/swiftui/app/main()
    @MainActor @preconcurrency public static func main() { fatalError("stand-in") }
}

/// https://developer.apple.com/documentation/swiftui/never/body-swift.property
extension Never: View, Scene {
    public typealias Body = Never
    public var body: Never { return fatalError("stand-in") }
}

/// https://developer.apple.com/documentation/swiftui/emptyview
@available(iOS 13.0, macCatalyst 13.0, macOS 10.15, tvOS 13.0, visionOS 1.0, watchOS 6.0, *)
public struct EmptyView: View {
    public typealias Body = Never
    nonisolated public init() {}
    public var body: Never { return fatalError("stand-in") }
}

/// https://developer.apple.com/documentation/swiftui/tupleview
@available(iOS 13.0, macCatalyst 13.0, macOS 10.15, tvOS 13.0, visionOS 1.0, watchOS 6.0, *)
public struct TupleView<T>: View {
    public typealias Body = Never
    nonisolated public init(_ value: T) {}
    public var body: Never { return fatalError("stand-in") }
}

/// https://developer.apple.com/documentation/swiftui/_conditionalcontent
@available(iOS 13.0, macCatalyst 13.0, macOS 10.15, tvOS 13.0, visionOS 1.0, watchOS 6.0, *)
public struct _ConditionalContent<TrueContent: View, FalseContent: View>: View {
    public typealias Body = Never
    nonisolated init() {}
    public var body: Never { return fatalError("stand-in") }
}

/// https://developer.apple.com/documentation/swiftui/optional
extension Optional: View where Wrapped: View {
    public typealias Body = Never
    public var body: Never { return fatalError("stand-in") }
}

/// https://developer.apple.com/documentation/swiftui/viewbuilder
@available(iOS 13.0, macCatalyst 13.0, macOS 10.15, tvOS 13.0, visionOS 1.0, watchOS 6.0, *)
@resultBuilder public struct ViewBuilder {
    public static func buildExpression<Content: View>(_ content: Content) -> Content { content }
    public static func buildBlock() -> EmptyView { EmptyView() }
    public static func buildBlock<Content: View>(_ content: Content) -> Content { content }
    public static func buildBlock<each Content: View>(_ content: repeat each Content) -> TupleView<(repeat each Content)> {
        TupleView((repeat each content))
    }
    public static func buildIf<Content: View>(_ content: Content?) -> Content? { content }
    public static func buildEither<TrueContent: View, FalseContent: View>(first: TrueContent) -> _ConditionalContent<
        TrueContent, FalseContent
    > { fatalError("stand-in") }
    public static func buildEither<TrueContent: View, FalseContent: View>(second: FalseContent) -> _ConditionalContent<
        TrueContent, FalseContent
    > { fatalError("stand-in") }
}

/// https://developer.apple.com/documentation/swiftui/scenebuilder
@available(iOS 14.0, macCatalyst 14.0, macOS 11.0, tvOS 14.0, visionOS 1.0, watchOS 7.0, *)
@resultBuilder public struct SceneBuilder {
    public static func buildExpression<Content: Scene>(_ content: Content) -> Content { content }
    public static func buildBlock<Content: Scene>(_ content: Content) -> Content { content }
}

/// https://developer.apple.com/documentation/swiftui/windowgroup
@available(iOS 14.0, macCatalyst 14.0, macOS 11.0, tvOS 14.0, visionOS 1.0, watchOS 7.0, *)
public struct WindowGroup<Content: View>: Scene {
    public typealias Body = Never
    /// https://developer.apple.com/documentation/swiftui/windowgroup/init(content:)
    nonisolated public init(@ViewBuilder content: () -> Content) {}
    public var body: Never { return fatalError("stand-in") }
}
