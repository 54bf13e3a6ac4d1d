#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow

/// How the provider's pages know who signs in: the login page, the device
/// verification page and the backchannel approval page read one rule.
enum PageSignIn {
    /// The user whose `username` and `password` the form carries (the
    /// password compared in constant time); nil for wrong credentials.
    static func user(_ form: StrictForm, in users: [ProviderUser]) -> ProviderUser? {
        guard let user = users.first(where: { $0.username == form["username"] }),
            constantTimeEquals(form["password"] ?? "", user.password)
        else { return nil }
        return user
    }

    /// The subject deciding on a device or backchannel page: the automatic
    /// user, or the user the form's credentials name; nil for wrong credentials.
    static func subject(_ form: StrictForm, configuration: ProviderConfiguration) -> String? {
        switch configuration.signIn {
        case .automatic(let subject): subject
        case .loginPage: user(form, in: configuration.users)?.subject
        }
    }

    /// The user-name and password fields of those pages; none with automatic sign-in.
    static func fields(_ configuration: ProviderConfiguration) -> String {
        guard configuration.signIn == .loginPage else { return "" }
        return """
            <label>Username <input name="username" autocomplete="username"></label>
            <label>Password <input name="password" type="password" autocomplete="current-password"></label>
            """
    }
}
#endif
