import SwiftUI

/// A minimal iOS app on AuthFlow: sign in, show the verified claims, call an
/// API with a fresh token, sign out. Every AuthFlow type it uses is built and
/// tested on Linux; only this SwiftUI shell needs Xcode.
@main
struct AuthFlowExampleApp: App {
    @State private var model = SessionModel()

    var body: some Scene {
        WindowGroup {
            ContentView(model: model)
        }
    }
}
