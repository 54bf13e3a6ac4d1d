import AuthenticationServices
import SwiftUI

struct ContentView: View {
    let model: SessionModel
    /// SwiftUI's web-authentication session: sign-in and sign-out need no window.
    @Environment(\.webAuthenticationSession) private var webAuthenticationSession

    var body: some View {
        NavigationStack {
            List {
                if let subject = model.subject {
                    Section("Signed in as \(subject)") {
                        Button("Call the API") {
                            Task { await model.callAPI() }
                        }
                        Button("Sign out", role: .destructive) {
                            Task { await model.signOut(using: webAuthenticationSession) }
                        }
                        .disabled(model.isWorking)
                    }
                } else {
                    Button("Sign in") {
                        Task { await model.signIn(using: webAuthenticationSession) }
                    }
                    .disabled(model.isWorking)
                }
                if let message = model.message {
                    Text(message)
                }
            }
            .navigationTitle("AuthFlow")
            .task { await model.restore() }
        }
    }
}
