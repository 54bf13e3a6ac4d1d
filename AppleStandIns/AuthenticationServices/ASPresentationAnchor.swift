import Foundation

#if os(macOS)
import AppKit
/// https://developer.apple.com/documentation/authenticationservices/aspresentationanchor
@available(macOS 10.15, *)
public typealias ASPresentationAnchor = NSWindow
#elseif os(iOS) || os(tvOS) || os(visionOS)
import UIKit
/// https://developer.apple.com/documentation/authenticationservices/aspresentationanchor
@available(iOS 12.0, macCatalyst 13.0, tvOS 13.0, visionOS 1.0, *)
public typealias ASPresentationAnchor = UIWindow
#endif
