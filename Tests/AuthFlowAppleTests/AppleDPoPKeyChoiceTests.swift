import AuthFlow
import Foundation
import Testing

@testable import AuthFlowApple

/// Stands in for a Secure Enclave key: a DPoPSigningKey that is not a
/// software DPoPKey, so a SessionRecord cannot hold it.
struct EnclaveKeyStandIn: DPoPSigningKey {
    let key = DPoPKey()
    var publicKeyX963: [UInt8] { key.publicKeyX963 }
    func signature(for signingInput: [UInt8]) throws -> [UInt8] { try key.signature(for: signingInput) }
}

@Suite struct AppleDPoPKeyChoiceTests {
    static func record(tokenType: String, dpopKey: DPoPKey? = nil) throws -> SessionRecord {
        let token = try TokenResponse(
            json: json(#"{"access_token":"AT","token_type":"\#(tokenType)","expires_in":3600,"refresh_token":"RT"}"#),
            requestedScopes: ["openid"], allowDPoP: true)
        return SessionRecord(
            credentials: OAuthCredentials(issuer: issuer("https://idp.example"), clientID: "app", token: token, idToken: nil),
            metadata: metadata(), clientAuthenticationMethod: .none, dpopKey: dpopKey)
    }

    let handle = Data([0x30, 0x81, 0x01, 0x02])

    @Test func signInKeyFollowsTheSettingAndTheEnclave() {
        #expect(AppleDPoPKeyChoice(dpop: false, secureEnclaveAvailable: false) == .none)
        #expect(AppleDPoPKeyChoice(dpop: false, secureEnclaveAvailable: true) == .none)
        #expect(AppleDPoPKeyChoice(dpop: true, secureEnclaveAvailable: false) == .software)
        #expect(AppleDPoPKeyChoice(dpop: true, secureEnclaveAvailable: true) == .secureEnclave)
    }

    @Test func aBoundSessionWithoutItsOwnKeyIsRestoredWithTheEnclaveHandle() throws {
        #expect(try AppleDPoPKeyChoice.restoring(Self.record(tokenType: "DPoP"), secureEnclaveHandle: handle) == .secureEnclave)
    }

    @Test func theRecordsOwnSoftwareKeyWins() throws {
        let record = try Self.record(tokenType: "DPoP", dpopKey: DPoPKey())
        #expect(try AppleDPoPKeyChoice.restoring(record, secureEnclaveHandle: nil) == .software)
        #expect(try AppleDPoPKeyChoice.restoring(record, secureEnclaveHandle: handle) == .software)
    }

    @Test func aBearerSessionIgnoresALeftOverHandle() throws {
        #expect(try AppleDPoPKeyChoice.restoring(Self.record(tokenType: "Bearer"), secureEnclaveHandle: handle) == AppleDPoPKeyChoice.none)
        #expect(try AppleDPoPKeyChoice.restoring(Self.record(tokenType: "Bearer"), secureEnclaveHandle: nil) == AppleDPoPKeyChoice.none)
    }

    @Test func aBoundSessionWhoseHandleIsMissingNeedsASignInNotABearerSession() throws {
        for missing in [nil, Data()] {
            let error = try #require(throws: AuthFlowError.self) {
                try AppleDPoPKeyChoice.restoring(Self.record(tokenType: "DPoP"), secureEnclaveHandle: missing)
            }
            #expect(error.category == .reauthenticationRequired)
            #expect(error.message == "the stored session is bound to a Secure Enclave DPoP key whose Keychain item is missing")
            #expect(error.recovery == "Sign in again.")
        }
    }

    @Test func anUnusableHandleNeedsASignInAndKeepsTheCause() throws {
        let cause = AuthFlowError(.configuration, "this device's Secure Enclave cannot use the stored DPoP key")
        let error = AppleDPoPKeyChoice.unusableSecureEnclaveHandle(cause)
        #expect(error.category == .reauthenticationRequired)
        #expect(error.message == "the stored session's Secure Enclave DPoP key cannot be opened on this device")
        #expect(error.recovery == "Sign in again.")
        #expect((error.underlyingError as? AuthFlowError)?.category == .configuration)
    }

    @Test func theHandleHasItsOwnKeychainAccountPerSession() {
        let key = CredentialKey(issuer: "https://idp.example", clientID: "app")
        let other = CredentialKey(issuer: "https://idp.example", clientID: "app", profile: "work")
        #expect(key.secureEnclaveDPoPKeyAccount != key.account)
        #expect(key.secureEnclaveDPoPKeyAccount.hasPrefix(key.account + " "))
        #expect(key.secureEnclaveDPoPKeyAccount != other.secureEnclaveDPoPKeyAccount)
        // A profile named like the suffix still cannot collide: parts are percent-encoded.
        let tricky = CredentialKey(issuer: "https://idp.example", clientID: "app", profile: "default secure-enclave-dpop-key")
        #expect(tricky.account != key.secureEnclaveDPoPKeyAccount)
    }

    // restoreSession: what AppleSignIn.restore() runs, with the Keychain and the enclave given here.

    static func restore(
        _ record: SessionRecord?, handle: Data?,
        open: (Data) throws -> any DPoPSigningKey
    ) async throws -> AuthSession? {
        try await AppleDPoPKeyChoice.restoreSession(
            from: MemoryCredentialStore(record), secureEnclaveHandle: handle,
            transport: ScriptedTransport.unused(), openSecureEnclaveKey: open)
    }

    @Test func restoringBindsTheSessionToTheKeyOpenedFromTheHandle() async throws {
        let enclaveKey = EnclaveKeyStandIn()
        var opened: [Data] = []
        let session = try #require(
            try await Self.restore(Self.record(tokenType: "DPoP"), handle: handle) { handle in
                opened.append(handle)
                return enclaveKey
            })
        #expect(opened == [handle])
        #expect(session.client.dpop?.key.thumbprint == enclaveKey.thumbprint)
    }

    @Test func restoringABearerOrSelfContainedSessionDoesNotOpenTheHandle() async throws {
        let bearer = try #require(
            try await Self.restore(Self.record(tokenType: "Bearer"), handle: handle) { _ in
                Issue.record("the handle was opened for a bearer session")
                return DPoPKey()
            })
        #expect(bearer.client.dpop == nil)
        let softwareKey = DPoPKey()
        let software = try #require(
            try await Self.restore(Self.record(tokenType: "DPoP", dpopKey: softwareKey), handle: handle) { _ in
                Issue.record("the handle was opened for a record that holds its key")
                return DPoPKey()
            })
        #expect(software.client.dpop?.key.thumbprint == softwareKey.thumbprint)
        #expect(try await Self.restore(nil, handle: handle) { _ in DPoPKey() } == nil)
    }

    @Test func restoringWithoutTheHandleGivesNoSession() async throws {
        let error = try await #require(throws: AuthFlowError.self) {
            try await Self.restore(Self.record(tokenType: "DPoP"), handle: nil) { _ in DPoPKey() }
        }
        #expect(error.category == .reauthenticationRequired)
        #expect(error.message == "the stored session is bound to a Secure Enclave DPoP key whose Keychain item is missing")
    }

    @Test func restoringWithAHandleTheEnclaveRefusesGivesNoSession() async throws {
        let error = try await #require(throws: AuthFlowError.self) {
            try await Self.restore(Self.record(tokenType: "DPoP"), handle: handle) { _ in
                throw AuthFlowError(
                    .configuration, "this device's Secure Enclave cannot use the stored DPoP key", recovery: "Sign in again with a new key."
                )
            }
        }
        #expect(error.category == .reauthenticationRequired)
        #expect(error.message == "the stored session's Secure Enclave DPoP key cannot be opened on this device")
        #expect(error.recovery == "Sign in again.")
        #expect((error.underlyingError as? AuthFlowError)?.message == "this device's Secure Enclave cannot use the stored DPoP key")
    }

    // startSession: what AppleSignIn.signIn runs around the browser, with the Keychain and the enclave given here.

    static func dpopCredentials() throws -> OAuthCredentials {
        try record(tokenType: "DPoP").credentials
    }

    static func client() throws -> OAuthClient {
        try OAuthClient(metadata: metadata(), clientID: "app", transport: ScriptedTransport.unused())
    }

    @Test func anEnclaveKeyThatCannotBeMadeFallsBackToASoftwareKey() async throws {
        // A Mac app signed without the entitlements the data-protection
        // Keychain needs: Secure Enclave keys live there (TN3137), and the
        // key cannot be made (errSecMissingEntitlement, -34018).
        let refused = NSError(domain: "NSOSStatusErrorDomain", code: -34018)
        let store = MemoryCredentialStore()
        var storedHandles: [Data?] = []
        var boundKey: String?
        let session = try await AppleDPoPKeyChoice.secureEnclave.startSession(
            client: Self.client(), store: store, makeSecureEnclaveKey: { throw refused },
            storeSecureEnclaveHandle: { storedHandles.append($0) },
            authorize: { client in
                boundKey = client.dpop?.key.thumbprint
                return try Self.dpopCredentials()
            })
        #expect(boundKey != nil)
        #expect(session.client.dpop?.key.thumbprint == boundKey)
        #expect(storedHandles == [nil])
        #expect(try await store.load()?.dpopKey?.thumbprint == boundKey, "the software key is kept in the record")
    }

    @Test func anEnclaveSignInStoresTheHandleBeforeTheRecordAndRestoresWithIt() async throws {
        let store = MemoryCredentialStore()
        let enclaveKey = EnclaveKeyStandIn()
        var events: [String] = []
        let session = try await AppleDPoPKeyChoice.secureEnclave.startSession(
            client: Self.client(), store: store,
            makeSecureEnclaveKey: { (enclaveKey, handle) },
            storeSecureEnclaveHandle: { stored in
                let recordSaved = try await store.load() != nil
                events.append("handle \(stored == handle), record saved \(recordSaved)")
            },
            authorize: { client in
                events.append("authorize")
                #expect(client.dpop?.key.thumbprint == enclaveKey.thumbprint)
                return try Self.dpopCredentials()
            })
        #expect(events == ["authorize", "handle true, record saved false"])
        #expect(session.client.dpop?.key.thumbprint == enclaveKey.thumbprint)
        let record = try #require(try await store.load())
        #expect(record.dpopKey == nil, "an enclave key is never put in the record")
        // The stored pair restores to the same key; without the handle it does not restore at all.
        let restored = try #require(
            try await AppleDPoPKeyChoice.restoreSession(
                from: store, secureEnclaveHandle: handle, transport: ScriptedTransport.unused()
            ) { _ in enclaveKey })
        #expect(restored.client.dpop?.key.thumbprint == enclaveKey.thumbprint)
        await #expect(throws: AuthFlowError.self) {
            try await AppleDPoPKeyChoice.restoreSession(from: store, secureEnclaveHandle: nil, transport: ScriptedTransport.unused()) { _ in
                enclaveKey
            }
        }
    }

    @Test func softwareAndBearerSignInsRemoveALeftOverHandle() async throws {
        for choice in [AppleDPoPKeyChoice.software, .none] {
            let store = MemoryCredentialStore()
            var storedHandles: [Data?] = []
            var boundKey: String?
            let session = try await choice.startSession(
                client: Self.client(), store: store,
                makeSecureEnclaveKey: {
                    Issue.record("an enclave key was made for \(choice)")
                    return (DPoPKey(), Data())
                },
                storeSecureEnclaveHandle: { storedHandles.append($0) },
                authorize: { client in
                    boundKey = client.dpop?.key.thumbprint
                    return try choice == .software ? Self.dpopCredentials() : Self.record(tokenType: "Bearer").credentials
                })
            #expect(storedHandles == [nil])
            let record = try #require(try await store.load())
            if choice == .software {
                #expect(boundKey != nil)
                #expect(record.dpopKey?.thumbprint == boundKey, "the software key is kept in the record")
            } else {
                #expect(boundKey == nil)
                #expect(record.dpopKey == nil)
            }
            #expect(session.client.dpop?.key.thumbprint == boundKey)
        }
    }

    @Test func aFailedSignInStoresNothing() async throws {
        let store = MemoryCredentialStore()
        await #expect(throws: AuthFlowError.self) {
            try await AppleDPoPKeyChoice.secureEnclave.startSession(
                client: Self.client(), store: store,
                makeSecureEnclaveKey: { (DPoPKey(), Data([1])) },
                storeSecureEnclaveHandle: { _ in Issue.record("a handle was stored for a failed sign-in") },
                authorize: { _ in throw AuthFlowError(.cancelled, "the user closed the sign-in page") })
        }
        #expect(try await store.load() == nil)
    }
}
