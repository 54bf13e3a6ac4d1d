#if PostgreSQL // the PostgreSQL package trait
import AuthFlow
import Crypto
import Foundation

/// A session record as a row holds it: the stored form (`CredentialCoding`)
/// sealed with AES-256-GCM. The associated data binds the ciphertext to its
/// table, session ID, key ID and the row's generation (bumped by every write,
/// a sign-out's tombstone included), so a row copied onto another session,
/// relabelled with another key, or an earlier record written back over a
/// later write or a tombstone does not open.
struct SealedRecord: Sendable {
    var keyID: String
    /// Nonce, ciphertext and tag (`AES.GCM.SealedBox.combined`).
    var sealed: Data

    /// `record` sealed for the row of `sessionID` at `generation` (the generation the write gives the row).
    static func seal(_ record: SessionRecord, table: String, sessionID: String, generation: Int64, with key: CredentialEncryptionKey) throws
        -> SealedRecord
    {
        let plain = try CredentialCoding.encode(record)
        let box = try AES.GCM.seal(plain, using: key.key, authenticating: associatedData(table, sessionID, key.id, generation))
        guard let combined = box.combined else {
            throw AuthFlowError(.storage, "the session record could not be encrypted")
        }
        return SealedRecord(keyID: key.id, sealed: combined)
    }

    /// The record, decrypted with the key this row names, for the row at `generation`.
    ///
    /// - Throws: `AuthFlowError/Category/configuration` when no given key
    ///   has the row's key ID; `AuthFlowError/Category/storage` when the
    ///   row does not open with it (another key under that ID, a row moved or
    ///   altered, an earlier record written back).
    func open(table: String, sessionID: String, generation: Int64, keys: CredentialEncryptionKeys) throws -> SessionRecord {
        guard let key = keys.key(id: keyID) else {
            throw AuthFlowError(
                .configuration, "the session \(sessionID) is encrypted with the key \(keyID), which is not among the keys given",
                recovery: "Pass the key \(keyID) among the previous keys, or sign in again.")
        }
        let plain: Data
        do {
            let box = try AES.GCM.SealedBox(combined: sealed)
            plain = try AES.GCM.open(box, using: key.key, authenticating: Self.associatedData(table, sessionID, keyID, generation))
        } catch {
            throw AuthFlowError(
                .storage,
                "the session \(sessionID) does not decrypt with the key \(keyID): the key is not the one it was written with, or the row was altered or written back",
                recovery: "Check the key given as \(keyID); a row that was altered cannot be read: sign in again.")
        }
        return try CredentialCoding.decode(plain, source: "the session \(sessionID) in \(table)")
    }

    private static func associatedData(_ table: String, _ sessionID: String, _ keyID: String, _ generation: Int64) -> Data {
        Data("authflow-session-v2\u{0}\(table)\u{0}\(sessionID)\u{0}\(keyID)\u{0}\(generation)".utf8)
    }
}
#endif
