import AuthFlow
import SwiftUI

struct ContentView: View {
    let model: SessionModel

    var body: some View {
        NavigationStack {
            List {
                switch model.state {
                case .signedOut:
                    Button("Sign in") {
                        guard let window = UIApplication.shared.connectedScenes
                            .compactMap({ ($0 as? UIWindowScene)?.keyWindow }).first else { return }
                        Task { await model.signIn(from: window) }
                    }
                case .signedIn(let subject, let claims, let canUsePayments):
                    Section("Signed in as \(subject)") {
                        ForEach(claims.keys.sorted(), id: \.self) { name in
                            LabeledContent(name, value: claims[name]?.stringValue ?? "…")
                        }
                    }
                    Section {
                        Button("Call the API") { Task { await model.callAPI() } }
                        if canUsePayments { Text("Payments enabled (scope granted)") }
                        Button("Sign out", role: .destructive) { Task { await model.signOut() } }
                    }
                }
                if let message = model.message { Text(message).foregroundStyle(.secondary) }
            }
            .navigationTitle("AuthFlow")
        }
    }
}
