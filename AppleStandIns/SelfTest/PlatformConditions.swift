// expect(macOS): no such module 'UIKit'
// `#if os(...)` is evaluated for the platform being checked: macOS has no UIKit.
#if os(iOS) || os(macOS)
import UIKit

let windowType: UIWindow.Type = UIWindow.self
#endif
