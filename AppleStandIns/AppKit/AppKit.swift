// The AppKit declarations the Apple layer uses, from Apple's documented Swift declarations.
import Foundation

/// https://developer.apple.com/documentation/appkit/nsresponder
@available(macOS 10.0, *)
@MainActor open class NSResponder: NSObject {}

/// https://developer.apple.com/documentation/appkit/nswindow
@available(macOS 10.0, *)
@MainActor open class NSWindow: NSResponder {}
