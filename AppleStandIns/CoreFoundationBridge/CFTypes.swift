// Core Foundation types the Security stand-in needs. On Apple platforms they
// come from CoreFoundation, re-exported by Foundation and Security. Linux
// Foundation has no toll-free bridging, so each CF type is an alias of its
// bridged Foundation class: `[String: Any] as CFDictionary` and
// `kSecClass as String` then type-check as they do on Apple platforms.
// (Consequence, listed in docs/apple-typecheck.md: NSDictionary methods called
// on a CFDictionary would also pass here.)
import Foundation

/// https://developer.apple.com/documentation/corefoundation/cfstring
public typealias CFString = NSString
/// https://developer.apple.com/documentation/corefoundation/cfdictionary
public typealias CFDictionary = NSDictionary
/// https://developer.apple.com/documentation/corefoundation/cftyperef
public typealias CFTypeRef = AnyObject
/// https://developer.apple.com/documentation/kernel/osstatus
public typealias OSStatus = Int32
