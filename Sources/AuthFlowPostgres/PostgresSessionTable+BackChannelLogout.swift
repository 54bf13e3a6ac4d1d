#if PostgreSQL // the PostgreSQL package trait
public import AuthFlow
import Foundation
import PostgresNIO

extension PostgresSessionTable {
    /// Ends the sessions an OpenID Connect back-channel logout names, on
    /// every instance: with `sid`, the session of that provider session
    /// (and of `subject`, when given too); with only `subject`, every
    /// session of that user at `issuer`. Each becomes a tombstone (reason
    /// `backchannel_logout`) that no refresh brings back; a refresh holding a
    /// session's lock finishes first, and its result is ended with it.
    ///
    /// Verify the logout token first (its signature, `iss`, `aud`, `iat`,
    /// `jti`, `events`; no `nonce`), then pass its claims here.
    ///
    /// - Parameters:
    ///   - issuer: The logout token's `iss`.
    ///   - subject: Its `sub`, if any.
    ///   - sid: Its `sid`, if any.
    /// - Returns: how many sessions were ended.
    /// - Throws: `AuthFlowError/Category/configuration` when neither
    ///   `subject` nor `sid` is given; database failures as `network`,
    ///   `timeout` or `storage`.
    @discardableResult
    public func endSessions(issuer: Issuer, subject: String?, sid: String?) async throws -> Int {
        guard subject != nil || sid != nil else {
            throw AuthFlowError(.configuration, "a back-channel logout names a subject, a session ID (sid), or both")
        }
        try await prepared()
        // Every key a row may hold for the value (one per encryption key, and the unkeyed hash of schema version 2).
        let subjectKeys = subject.map {
            SessionIdentityKeys.candidates(issuer.identifier, "sub", $0, keys: keys).map { ByteBuffer(bytes: $0) }
        }
        let sidKeys = sid.map { SessionIdentityKeys.candidates(issuer.identifier, "sid", $0, keys: keys).map { ByteBuffer(bytes: $0) } }
        let doing = "end the sessions of a back-channel logout in \(name)"
        do {
            var ended = 0
            for row in try await Statement.rows(
                """
                WITH ended AS (
                    UPDATE \(unescaped: name) SET generation = generation + 1, key_id = NULL, sealed = NULL, refresh_rotates = NULL,
                        expires_at = NULL, signed_out_at = now(), ended_reason = 'backchannel_logout', updated_at = now(),
                        subject_key = NULL, sid_key = NULL
                    WHERE sealed IS NOT NULL
                        AND (\(sidKeys)::bytea[] IS NULL OR sid_key = ANY(\(sidKeys)))
                        AND (\(subjectKeys)::bytea[] IS NULL OR subject_key = ANY(\(subjectKeys)))
                    RETURNING session_id),
                marks AS (DELETE FROM \(unescaped: name)_refreshes r USING ended WHERE r.session_id = ended.session_id)
                SELECT count(*) FROM ended
                """, on: client, within: options.lockTimeout + options.queryTimeout, doing: doing, logger: logger)
            {
                ended = try row.decode(Int.self)
            }
            return ended
        } catch {
            throw DatabaseError.map(error, doing: doing)
        }
    }
}
#endif
