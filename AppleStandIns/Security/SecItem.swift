// Keychain item API of Security.framework, from Apple's documented Swift
// declarations. C globals imported from Security are immutable; they are
// declared `nonisolated(unsafe)` here as the importer treats them.
@_exported import CoreFoundationBridge
import Foundation

/// https://developer.apple.com/documentation/security/secitemcopymatching(_:_:)
@available(iOS 2.0, macCatalyst 13.1, macOS 10.6, tvOS 9.0, visionOS 1.0, watchOS 2.0, *)
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus { fatalError("stand-in") }

/// https://developer.apple.com/documentation/security/secitemadd(_:_:)
@available(iOS 2.0, macCatalyst 13.1, macOS 10.6, tvOS 9.0, visionOS 1.0, watchOS 2.0, *)
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus { fatalError("stand-in") }

/// https://developer.apple.com/documentation/security/secitemupdate(_:_:)
@available(iOS 2.0, macCatalyst 13.1, macOS 10.6, tvOS 9.0, visionOS 1.0, watchOS 2.0, *)
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus { fatalError("stand-in") }

/// https://developer.apple.com/documentation/security/secitemdelete(_:)
@available(iOS 2.0, macCatalyst 13.1, macOS 10.6, tvOS 9.0, visionOS 1.0, watchOS 2.0, *)
public func SecItemDelete(_ query: CFDictionary) -> OSStatus { fatalError("stand-in") }
