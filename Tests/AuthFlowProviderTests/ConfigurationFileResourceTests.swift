#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowProvider
import AuthFlowTestSupport
import Foundation
import Testing

/// The configuration file's protected resources, dynamic registration and
/// client ID metadata document settings: what they become, and the exact
/// error for each bad value.
@Suite("Provider configuration file: resources, registration, metadata documents")
struct ConfigurationFileResourceTests {
    /// Loads `json` from a file named provider.json in a fresh directory.
    private func load(_ json: String) throws -> ProviderConfiguration {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authflow-provider-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("provider.json")
        try Data(json.utf8).write(to: file)
        return try ProviderConfigurationFile.load(file)
    }

    /// The message of the error loading `json` throws.
    private func failure(_ json: String) -> String? {
        do {
            _ = try load(json)
            return nil
        } catch let error as ProviderConfigurationError {
            return error.description
        } catch {
            return "\(error)"
        }
    }

    @Test("left out: no resource, registration on, metadata documents on with the client's limits")
    func defaults() throws {
        let configuration = try load("{}")
        #expect(configuration.protectedResources.isEmpty && configuration.allowsDynamicRegistration)
        #expect(configuration.clientIDMetadataDocuments == ClientIDMetadataDocumentSettings())
        #expect(configuration.clientIDMetadataDocuments.maximumBytes == 64 << 10)
    }

    @Test("the acr members are read: what sign-ins may claim, what a resource demands")
    func acrMembers() throws {
        let configuration = try load(
            """
            {"acr_values_supported": ["urn:example:password", "urn:example:mfa"],
             "protected_resources": [{"resource": "/api", "acr_values": ["urn:example:mfa"], "max_age": 300}]}
            """)
        #expect(configuration.acrValuesSupported == ["urn:example:password", "urn:example:mfa"])
        var expected = ProviderProtectedResource(path: "/api")
        expected.requiredACRValues = ["urn:example:mfa"]
        expected.maxAuthenticationAge = 300
        #expect(configuration.protectedResources == [expected])
    }

    @Test("every member is read")
    func everyMember() throws {
        let configuration = try load(
            """
            {"port": 9123,
             "protected_resources": [{"resource": "/api"},
                                     {"resource": "http://127.0.0.1:9123/files", "scopes": ["files.read", "files.write"],
                                      "scopes_supported": ["files.read", "files.write", "files.admin"]}],
             "dynamic_client_registration": false,
             "client_id_metadata_documents": {"enabled": false, "allow_loopback_http": true, "max_bytes": 4096,
                                              "timeout": 2.5, "cache_lifetime": 0}}
            """)
        #expect(
            configuration.protectedResources == [
                ProviderProtectedResource(path: "/api"),
                ProviderProtectedResource(
                    path: "/files", requiredScopes: ["files.read", "files.write"],
                    scopesSupported: ["files.read", "files.write", "files.admin"]),
            ])
        #expect(!configuration.allowsDynamicRegistration)
        var settings = ClientIDMetadataDocumentSettings()
        settings.isEnabled = false
        settings.allowsLoopbackHTTP = true
        settings.maximumBytes = 4096
        settings.timeout = 2.5
        settings.cacheLifetime = 0
        #expect(configuration.clientIDMetadataDocuments == settings)
    }

    @Test(
        "a bad value is refused with the file, the member and what is wrong",
        arguments: [
            (
                #"{"protected_resources": [{"resource": "api"}]}"#,
                "provider.json: protected_resources[0].resource must be a path such as /api, or http://127.0.0.1:PORT/api on the provider's own listener"
            ),
            (
                #"{"protected_resources": [{"resource": "https://api.example.com/api"}]}"#,
                "provider.json: protected_resources[0].resource must be a path such as /api, or http://127.0.0.1:PORT/api on the provider's own listener"
            ),
            (
                #"{"port": 9123, "protected_resources": [{"resource": "/a"}, {"resource": "http://127.0.0.1:9124/api"}]}"#,
                "provider.json: protected_resources[1].resource http://127.0.0.1:9124/api names port 9124; give the same port, or only the path"
            ),
            (
                #"{"protected_resources": [{"resource": "http://127.0.0.1:9124/api"}]}"#,
                "provider.json: protected_resources[0].resource http://127.0.0.1:9124/api names port 9124; give the same port, or only the path"
            ),
            (
                #"{"protected_resources": [{"resource": "/api", "scopes": []}]}"#,
                "provider.json: protected_resources[0].scopes must name at least one scope (leave it out for api.read)"
            ),
            (
                #"{"protected_resources": [{"resource": "/api", "scopes": ["a b"]}]}"#,
                "provider.json: the protected resource scope \"a b\" is not a scope token"
            ),
            (
                #"{"protected_resources": [{"resource": "/token"}]}"#,
                "provider.json: the protected resource path /token collides with one of the provider's endpoints"
            ),
            (
                #"{"protected_resources": [{"resource": "/api"}, {"resource": "/api"}]}"#,
                "provider.json: protected resource paths must be unique (/api)"
            ),
            (
                #"{"protected_resources": [{"scopes": ["x"]}]}"#,
                "provider.json: protected_resources[0] is missing resource"
            ),
            (
                #"{"protected_resources": [{"resource": "/api", "acr_values": ["two words"]}]}"#,
                "provider.json: protected_resources[0].acr_values or max_age: an acr value must be a non-empty token without spaces, quotes or backslashes"
            ),
            (
                #"{"protected_resources": [{"resource": "/api", "max_age": -1}]}"#,
                "provider.json: protected_resources[0].acr_values or max_age: max_age must not be negative"
            ),
            (
                #"{"client_id_metadata_documents": {"timeout": 0}}"#,
                "provider.json: the client ID metadata document timeout must be a positive number of seconds"
            ),
            (
                #"{"client_id_metadata_documents": {"timeout": -1}}"#,
                "provider.json: the client ID metadata document timeout must be a positive number of seconds"
            ),
            (
                #"{"client_id_metadata_documents": {"max_bytes": 0}}"#,
                "provider.json: the client ID metadata document size limit must be 1…1048576 bytes, not 0"
            ),
            (
                #"{"client_id_metadata_documents": {"max_bytes": 1048577}}"#,
                "provider.json: the client ID metadata document size limit must be 1…1048576 bytes, not 1048577"
            ),
            (
                #"{"client_id_metadata_documents": {"cache_lifetime": -5}}"#,
                "provider.json: the client ID metadata document cache lifetime must be 0 or more seconds"
            ),
        ])
    func badValue(json: String, message: String) {
        #expect(failure(json) == message)
    }

    @Test(
        "a member of the wrong type is refused with its path",
        arguments: [
            (#"{"dynamic_client_registration": "no"}"#, "provider.json: dynamic_client_registration: "),
            (#"{"client_id_metadata_documents": {"enabled": 1}}"#, "provider.json: client_id_metadata_documents.enabled: "),
            (#"{"client_id_metadata_documents": {"max_bytes": "64 KiB"}}"#, "provider.json: client_id_metadata_documents.max_bytes: "),
            (#"{"protected_resources": {"resource": "/api"}}"#, "provider.json: protected_resources: "),
            (#"{"protected_resources": [{"resource": "/api", "scopes": "api.read"}]}"#, "provider.json: protected_resources[0].scopes: "),
        ])
    func wrongType(json: String, prefix: String) {
        let message = failure(json)
        #expect(message?.hasPrefix(prefix) == true, "\(message ?? "loaded")")
    }

    @Test("registration off: no registration_endpoint, and POST /register is refused")
    func registrationOff() async throws {
        var configuration = try load(#"{"dynamic_client_registration": false, "client_id_metadata_documents": {"enabled": false}}"#)
        configuration.port = 0
        try await Fixture.with(configuration) { provider in
            let metadata = try await ProviderMetadata.discover(authorizationServer: provider.issuer)
            #expect(metadata.registrationEndpoint == nil)
            #expect(metadata.document["client_id_metadata_document_supported"] == .bool(false))
            let response = try await RawHTTP.send(
                port: provider.port, method: "POST", target: "/register", headers: [("Content-Type", "application/json")],
                body: #"{"redirect_uris": ["http://127.0.0.1/callback"]}"#)
            #expect(response.status == 404)
        }
    }
}
#endif
