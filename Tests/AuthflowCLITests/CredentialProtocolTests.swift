#if CLI
import Foundation
import Testing
@testable import authflow

@Suite("git credential protocol")
struct GitCredentialMessageTests {
    @Test("key=value lines up to a blank line; unknown keys kept; [] keys may repeat")
    func parsing() throws {
        let input =
            "protocol=https\nhost=forge.example.com:8443\npath=team/repo.git\nwwwauth[]=Bearer realm=\"x\"\n"
            + "wwwauth[]=Basic\ncapability[]=authtype\nfuture=thing\n\nhost=ignored.example.com\n"
        let message = try GitCredentialMessage.parse(Data(input.utf8))
        #expect(message["protocol"] == "https" && message["host"] == "forge.example.com:8443" && message["future"] == "thing")
        #expect(message.attributes.filter { $0.key == "wwwauth[]" }.map(\.value) == ["Bearer realm=\"x\"", "Basic"])
        #expect(message.attributes.count == 7)
        #expect(try GitCredentialMessage.parse(Data("protocol=https\r\nhost=a\r\n".utf8))["host"] == "a")
        #expect(try GitCredentialMessage.parse(Data()).attributes.isEmpty)
        #expect(try GitCredentialMessage.parse(Data("password=a=b\n".utf8))["password"] == "a=b")
    }

    @Test("bad input: each with its exact error, no value quoted")
    func badInput() {
        let long = String(repeating: "x", count: GitCredentialMessage.maximumLineLength)
        let cases: [(String, String)] = [
            ("protocol=https\ngarbage-secret\n", "git credential input: line 2 is not key=value"),
            ("=value\n", "git credential input: line 1 is not key=value"),
            ("host=a\u{0}b\n", "git credential input: line 1 contains a NUL byte"),
            ("host=a\nhost=b\n", "git credential input: the attribute host is given twice"),
            ("password=\(long)\n", "git credential input: line 1 is longer than 65536 bytes"),
        ]
        for (input, message) in cases {
            #expect(throws: CredentialInputError(message)) { try GitCredentialMessage.parse(Data(input.utf8)) }
        }
        #expect(throws: CredentialInputError("git credential input: line 1 is not UTF-8")) {
            try GitCredentialMessage.parse(Data([0x68, 0x3D, 0xFF, 0x0A]))
        }
        let huge = Data(repeating: UInt8(ascii: "a"), count: GitCredentialMessage.maximumInputLength + 1)
        #expect(throws: CredentialInputError("git credential input is larger than 1048576 bytes")) { try GitCredentialMessage.parse(huge) }
    }

    @Test("an answer with a line break in a value is refused, not written")
    func serializing() throws {
        #expect(try GitCredentialMessage([("username", "oauth2"), ("password", "t")]).serialized() == "username=oauth2\npassword=t\n")
        for bad in ["a\nhost=evil", "a\u{0}", "a\r\nb", "a\rb"] {
            #expect(throws: CredentialInputError("the password attribute cannot be written to git: it contains a line break or NUL")) {
                try GitCredentialMessage([("password", bad)]).serialized()
            }
        }
    }
}

@Suite("credential URLs")
struct CredentialTargetTests {
    @Test("patterns serve their host, port and path prefix")
    func matching() throws {
        let host = try #require(CredentialTarget(url: "https://Forge.Example.com"))
        let team = try #require(CredentialTarget(url: "forge.example.com:443/team/"))
        #expect(team.text == "https://forge.example.com/team" && host.text == "https://forge.example.com")
        let repo = try #require(CredentialTarget(scheme: "https", hostAndPort: "forge.example.com", path: "team/repo.git"))
        let other = try #require(CredentialTarget(scheme: "https", hostAndPort: "forge.example.com", path: "teammate/x"))
        #expect(host.serves(repo) && team.serves(repo) && !team.serves(other) && host.serves(other))
        #expect(!host.serves(try #require(CredentialTarget(url: "http://forge.example.com"))))
        #expect(!host.serves(try #require(CredentialTarget(url: "https://forge.example.com:8443"))))
        #expect(!host.serves(try #require(CredentialTarget(url: "https://forge.example.com.evil.example"))))
        #expect(try #require(CredentialTarget(url: "http://127.0.0.1:8080")).isLoopback)
        for bad in ["ftp://x", "https://", "https://a b", "https://user@host", "https://h:99999", "https://h:x"] {
            #expect(CredentialTarget(url: bad) == nil, "\(bad)")
        }
    }
}

@Suite("Docker credential protocol")
struct DockerCredentialMessageTests {
    @Test("get reads one server URL; store checks the JSON shape")
    func parsing() throws {
        #expect(try DockerCredentialMessage.serverURL(Data("https://registry.example.com\n".utf8)) == "https://registry.example.com")
        let stored = try DockerCredentialMessage.storeRequest(Data(#"{"ServerURL":"r.example.com","Username":"u","Secret":"s"}"#.utf8))
        #expect(stored.serverURL == "r.example.com" && stored.username == "u")
        let answer = try #require(
            try JSONSerialization.jsonObject(with: DockerCredentialMessage.credentials(serverURL: "r", username: "u", secret: "s"))
                as? [String: String])
        #expect(answer == ["ServerURL": "r", "Username": "u", "Secret": "s"])
    }

    @Test("bad input: each with its exact error")
    func badInput() {
        let cases: [(Data, String)] = [
            (Data("a\nb".utf8), "docker credential input: the server URL contains a line break or control character"),
            (Data("\n".utf8), "docker credential input: no server URL"),
            (Data(repeating: 0x61, count: 8_193), "docker credential input: the server URL is longer than 8192 bytes"),
            (Data([0xFF]), "docker credential input: the server URL is not UTF-8"),
        ]
        for (input, message) in cases {
            #expect(throws: CredentialInputError(message)) { try DockerCredentialMessage.serverURL(input) }
        }
        let stores: [(String, String)] = [
            (#"{"ServerURL":"a","Username":"u"}"#, "docker credential input: Secret is missing or not a string"),
            (#"["x"]"#, "docker credential input is not a JSON object"),
            (
                #"{"ServerURL":"a","ServerURL":"b","Username":"u","Secret":"s"}"#,
                "docker credential input is not JSON: duplicate member name \"ServerURL\" (object ending at offset 60)"
            ),
            ("garbage", "docker credential input is not JSON: unexpected byte 0x67 at offset 0"),
        ]
        for (input, message) in stores {
            #expect(throws: CredentialInputError(message)) { try DockerCredentialMessage.storeRequest(Data(input.utf8)) }
        }
    }
}

@Suite("kubectl ExecCredential")
struct ExecCredentialTests {
    @Test("the version and interactivity kubectl names; v1 without KUBERNETES_EXEC_INFO")
    func request() throws {
        let v1 = try ExecCredential.request(
            fromEnvironment:
                #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","spec":{"interactive":false,"cluster":{"server":"https://127.0.0.1:6443"}}}"#
        )
        #expect(v1 == ExecCredential(apiVersion: "client.authentication.k8s.io/v1", interactive: false))
        let beta = try ExecCredential.request(
            fromEnvironment: #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","spec":{}}"#)
        #expect(beta == ExecCredential(apiVersion: "client.authentication.k8s.io/v1beta1", interactive: nil))
        #expect(try ExecCredential.request(fromEnvironment: nil).apiVersion == "client.authentication.k8s.io/v1")
    }

    @Test("the answer: kind, apiVersion, status.token, status.expirationTimestamp")
    func response() throws {
        let data = ExecCredential(apiVersion: "client.authentication.k8s.io/v1beta1", interactive: true)
            .response(token: "tok", expiresAt: Date(timeIntervalSince1970: 1_800_000_000))
        #expect(
            String(decoding: data, as: UTF8.self)
                == #"{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","spec":{},"status":{"expirationTimestamp":"2027-01-15T08:00:00Z","token":"tok"}}"#
        )
    }

    @Test("bad input: each with its exact error")
    func badInput() {
        let cases: [(String, String)] = [
            (
                #"{"apiVersion":"client.authentication.k8s.io/v2"}"#,
                "KUBERNETES_EXEC_INFO asks for client.authentication.k8s.io/v2, which this plugin does not speak (it speaks "
                    + "client.authentication.k8s.io/v1 and client.authentication.k8s.io/v1beta1); set the user's exec apiVersion to one of them"
            ),
            (
                #"{"apiVersion":"client.authentication.k8s.io/v1alpha1"}"#,
                "KUBERNETES_EXEC_INFO asks for client.authentication.k8s.io/v1alpha1, which this plugin does not speak (it speaks "
                    + "client.authentication.k8s.io/v1 and client.authentication.k8s.io/v1beta1); set the user's exec apiVersion to one of them"
            ),
            (#"{"kind":"ExecCredential"}"#, "KUBERNETES_EXEC_INFO has no apiVersion"),
            (#"{"kind":"Pod","apiVersion":"v1"}"#, "KUBERNETES_EXEC_INFO is not an ExecCredential"),
            (
                #"{"apiVersion":"client.authentication.k8s.io/v1","spec":{"interactive":"yes"}}"#,
                "KUBERNETES_EXEC_INFO: spec.interactive is not a boolean"
            ),
            (
                #"{"apiVersion":"client.authentication.k8s.io/v1","apiVersion":"client.authentication.k8s.io/v1beta1"}"#,
                "KUBERNETES_EXEC_INFO is not JSON: duplicate member name \"apiVersion\" (object ending at offset 99)"
            ),
            ("not json", "KUBERNETES_EXEC_INFO is not JSON: unexpected byte 0x6f at offset 1"),
            ("{\"apiVersion\":\"a\u{0}\"}", "KUBERNETES_EXEC_INFO is not JSON: unescaped control character at offset 16"),
            (String(repeating: " ", count: ExecCredential.maximumInfoLength + 1), "KUBERNETES_EXEC_INFO is larger than 1048576 bytes"),
        ]
        for (input, message) in cases {
            #expect(throws: CredentialInputError(message)) { try ExecCredential.request(fromEnvironment: input) }
        }
    }
}

@Suite("argv[0]")
struct InvokedAsTests {
    @Test("docker-credential-authflow speaks Docker's protocol; authflow parses as usual")
    func dispatch() {
        #expect(InvokedAs.arguments(argv0: "/usr/local/bin/docker-credential-authflow", ["get"]) == ["credential", "docker", "get"])
        #expect(InvokedAs.arguments(argv0: "docker-credential-authflow", ["list"]) == ["credential", "docker", "list"])
        #expect(InvokedAs.arguments(argv0: "/usr/bin/authflow", ["token"]) == ["token"])
        #expect(InvokedAs.arguments(argv0: "docker-credential-authflow-x", ["get"]) == ["get"])
    }
}
#endif
