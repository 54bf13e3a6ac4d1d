// expect(iOS): is imported by this file as 'internal'
// expect(macCatalyst): is imported by this file as 'internal'
// expect(macOS): is imported by this file as 'internal'
// expect(visionOS): is imported by this file as 'internal'
// expect(tvOS): is imported by this file as 'internal'
// expect(watchOS): is imported by this file as 'internal'
// A public declaration whose type comes from a module imported without
// `public`: under the manifest's InternalImportsByDefault, as Xcode builds the
// package, that import is internal and the declaration cannot be public.
import AuthFlow
import Foundation

public func credentialKey(issuer: URL) -> CredentialKey {
    CredentialKey(issuer: issuer.absoluteString, clientID: "app")
}
