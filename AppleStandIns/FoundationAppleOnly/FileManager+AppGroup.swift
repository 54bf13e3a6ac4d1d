// Foundation API that Apple's Foundation has and Linux Foundation lacks.
// scripts/typecheck-apple imports this module implicitly, so that files which
// `import Foundation` see it as they do on Apple platforms.
import Foundation

extension FileManager {
    /// https://developer.apple.com/documentation/foundation/filemanager/containerurl(forsecurityapplicationgroupidentifier:)
    @available(iOS 7.0, macCatalyst 13.1, macOS 10.8, tvOS 9.0, visionOS 1.0, watchOS 2.0, *)
    public func containerURL(forSecurityApplicationGroupIdentifier groupIdentifier: String) -> URL? { fatalError("stand-in") }
}
