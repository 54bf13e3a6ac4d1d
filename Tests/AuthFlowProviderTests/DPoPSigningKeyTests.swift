#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowTestSupport
import AuthFlowProvider
import Crypto
import Foundation
import Testing

/// A key that gives out only its public point and signatures, as a hardware
/// key (a Secure Enclave key) does.
struct SealedKey: DPoPSigningKey {
    private let key = P256.Signing.PrivateKey()
    var publicKeyX963: [UInt8] { Array(key.publicKey.x963Representation) }
    func signature(for signingInput: [UInt8]) throws -> [UInt8] { Array(try key.signature(for: signingInput).rawRepresentation) }
}

/// A key that breaks the protocol's contract.
struct MalformedKey: DPoPSigningKey {
    var point: [UInt8]
    var signatureLength = 64
    var publicKeyX963: [UInt8] { point }
    func signature(for signingInput: [UInt8]) throws -> [UInt8] { Array(repeating: 1, count: signatureLength) }
}

@Suite("DPoP with a key that never gives out its private key")
struct DPoPSigningKeyTests {
    @Test("a DPoPSigningKey signs in, calls userinfo and refreshes; a restored session is bound again to the key passed in")
    func sealedKeyAgainstTheProvider() async throws {
        var configuration = Fixture.configuration()
        configuration.requiresDPoPNonce = true
        try await Fixture.with(configuration) { provider in
            let sealed = SealedKey()
            let binding = DPoPBinding(key: sealed)
            var client = try await OAuthClient(issuer: provider.issuer, clientID: "authflow-demo")
            client.dpop = binding
            let credentials = try await client.exchange(authorize(client).1)
            #expect(credentials.token.tokenType == "DPoP")
            let introspection = try await Wire(provider: provider).introspect(credentials.accessToken)
            #expect(introspection["cnf"] == .object(["jkt": .string(sealed.thumbprint)]))
            #expect(sealed.thumbprint == DPoPBinding(key: sealed).key.thumbprint)
            let info = try await client.userInfo(
                accessToken: credentials.accessToken, tokenType: "DPoP", expectedSubject: credentials.subject)
            #expect(info.subject == credentials.subject)

            // The record cannot hold this key; the app gives it back on restore.
            let store = MemoryCredentialStore()
            let session = try await AuthSession.start(client: client, credentials: credentials, store: store)
            #expect(try await store.load()?.dpopKey == nil)
            _ = session
            let restored = try #require(try await AuthSession.restore(from: store, dpopKey: sealed))
            #expect(restored.client.dpop?.key.thumbprint == sealed.thumbprint)
            #expect(try await restored.client.refresh(credentials).token.tokenType == "DPoP")
        }
    }

    @Test("a key with a malformed public point or signature is a configuration error, not a crash")
    func malformedKeys() throws {
        let url = URL(string: "https://rs.example/")!
        let good = Array(P256.Signing.PrivateKey().publicKey.x963Representation)
        for point in [[], Array(good.prefix(33)), [2] + good.dropFirst()] {
            let error = #expect(throws: AuthFlowError.self) {
                try DPoPBinding(key: MalformedKey(point: point)).proof(method: "GET", url: url)
            }
            #expect(error?.category == .configuration)
            #expect(error?.message == "the DPoP key's public point is not 65 bytes, uncompressed (X9.63)")
        }
        let short = #expect(throws: AuthFlowError.self) {
            try DPoPBinding(key: MalformedKey(point: good, signatureLength: 70)).proof(method: "GET", url: url)
        }
        #expect(short?.message == "the DPoP key's signature is not 64 bytes (raw r and s)")
    }
}
#endif
