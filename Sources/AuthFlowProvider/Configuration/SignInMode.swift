#if EmbeddedProvider // the EmbeddedProvider package trait
/// How a user signs in at the authorization endpoint.
public enum SignInMode: Sendable, Equatable {
    /// The user with this `sub` is signed in and consents at once, with no
    /// page: the authorization endpoint redirects straight back (tests, the demo).
    case automatic(subject: String)
    /// A small login and consent page asks for a username and password.
    case loginPage
}
#endif
