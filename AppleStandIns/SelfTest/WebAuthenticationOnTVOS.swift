// expect(tvOS): is unavailable
// tvOS has no presentation context for a web-authentication session.
import AuthenticationServices
import Foundation

func configure(_ session: ASWebAuthenticationSession) {
    session.presentationContextProvider = nil
}
