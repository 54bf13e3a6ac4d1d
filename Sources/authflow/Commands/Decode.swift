#if CLI // the CLI package trait
import AuthFlow
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `authflow decode JWT`: header and claims, clearly unverified.
struct Decode: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show a JWT's header and claims WITHOUT verifying it.")

    @Argument(help: "The JWT (compact serialization).")
    var jwt: String

    struct Decoded: Encodable {
        let verified = false
        let warning = "UNVERIFIED: the signature and claims were not checked"
        let header: [String: JSONMemberValue]
        let claims: [String: JSONMemberValue]
    }

    func run() async throws {
        do {
            let jws = try CompactJWS(jwt.trimmingWhitespaceAndNewlines())
            Output.json(Decoded(header: jws.header, claims: jws.claims))
        } catch {
            throw Output.fail(error, json: true)
        }
    }
}
#endif
