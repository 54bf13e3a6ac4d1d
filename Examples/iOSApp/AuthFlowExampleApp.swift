import SwiftUI

/// A minimal iOS app on AuthFlow: sign in from SwiftUI, survive a relaunch
/// offline, call an API with a fresh token, sign out in the same browser
/// sheet. It uses AuthFlow's public API only, and `scripts/typecheck-apple`
/// type-checks it on Linux against the Apple framework stand-ins.
@main
struct AuthFlowExampleApp: App {
    @State private var model = SessionModel()

    var body: some Scene {
        WindowGroup {
            ContentView(model: model)
        }
    }
}
