public import AuthFlow

extension AuthFlowError.Remedy {
    /// The system refused an https callback: add `webcredentials:` and the
    /// host (the remedy's value) to the Associated Domains entitlement and
    /// name the app in the host's apple-app-site-association file.
    public static let checkTheWebCredentialsAssociation = Self(name: "check_the_webcredentials_association")
    /// The window to present the browser from was not ready (at launch,
    /// before the scene is active): try again once it is. Transient.
    public static let presentWhenTheSceneIsActive = Self(name: "present_when_the_scene_is_active")
    /// A sign-in (or sign-out) browser session is already on screen: wait
    /// for it rather than starting another, and disable the button that
    /// starts one while it runs.
    public static let waitForTheSignInInProgress = Self(name: "wait_for_the_sign_in_in_progress")
}
