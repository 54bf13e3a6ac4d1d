// expect(iOS): is only available in AF_iOS_16_4
// SwiftUI's webAuthenticationSession (iOS 16.4) used in a view of an iOS 16.0 app without a guard.
import AuthenticationServices
import SwiftUI

struct SignInView: View {
    @Environment(\.webAuthenticationSession) private var webAuthenticationSession
    var body: some View { Text("Sign in") }
}
