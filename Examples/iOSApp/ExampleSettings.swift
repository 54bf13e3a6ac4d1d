/// The sign-in settings of the example: the same keys an app puts in the
/// `AuthFlow` dictionary of its Info.plist (see "Signing in on iOS"), kept in
/// code because an app package has no Info.plist of its own to edit.
/// Replace them with your provider's values.
enum ExampleSettings {
    static var authFlow: [String: Any] {
        [
            "Issuer": "https://id.example.com",
            "ClientID": "com.example.authflow",
            "RedirectURI": "com.example.authflow:/oauth2redirect",
            "PostLogoutRedirectURI": "com.example.authflow:/signed-out",
            "Scopes": "openid profile offline_access",
            "DPoP": true,
        ]
    }
}
