// The AppKit declarations the Apple layer uses, from Apple's documented Swift declarations.
import Foundation

/// https://developer.apple.com/documentation/appkit/nsresponder
@available(macOS 10.0, *)
@MainActor open class NSResponder: NSObject {}

/// https://developer.apple.com/documentation/appkit/nswindow
@available(macOS 10.0, *)
@MainActor open class NSWindow: NSResponder {}

/// https://developer.apple.com/documentation/appkit/nsrunningapplication
@available(macOS 10.6, *)
open class NSRunningApplication: NSObject {}

/// https://developer.apple.com/documentation/appkit/nsworkspace
@available(macOS 10.0, *)
open class NSWorkspace: NSObject {
    /// https://developer.apple.com/documentation/appkit/nsworkspace/shared
    open class var shared: NSWorkspace { fatalError("stand-in") }

    /// https://developer.apple.com/documentation/appkit/nsworkspace/openconfiguration
    @available(macOS 10.15, *)
    open class OpenConfiguration: NSObject {
        public override init() { fatalError("stand-in") }
        /// https://developer.apple.com/documentation/appkit/nsworkspace/openconfiguration/requiresuniversallinks
        /// Attempts "fail with an error if the app isn't properly configured", and
        /// "if the user disabled support for opening links with the specified app".
        open var requiresUniversalLinks: Bool {
            get { fatalError("stand-in") }
            set { fatalError("stand-in") }
        }
    }

    /// https://developer.apple.com/documentation/appkit/nsworkspace/open(_:configuration:completionhandler:)
    /// in the async form Swift imports.
    @available(macOS 10.15, *)
    open func open(_ url: URL, configuration: OpenConfiguration) async throws -> NSRunningApplication { fatalError("stand-in") }
}
