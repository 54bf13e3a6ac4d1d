#if !PostgreSQL
// Without the package trait that brings postgres-nio, this product's types
// are unavailable with a message that names the trait, rather than missing.

@available(
    *, unavailable,
    message:
        "AuthFlowPostgres needs the package trait PostgreSQL: .package(url: \"https://github.com/authflow/authflow.git\", from: \"0.1.0\", traits: [\"PostgreSQL\"])"
)
public enum PostgresSessionTable {}

@available(*, unavailable, message: "AuthFlowPostgres needs the package trait PostgreSQL (see PostgresSessionTable)")
public enum PostgresCredentialStore {}

@available(*, unavailable, message: "AuthFlowPostgres needs the package trait PostgreSQL (see PostgresSessionTable)")
public enum PostgresReplayCache {}

@available(*, unavailable, message: "AuthFlowPostgres needs the package trait PostgreSQL (see PostgresSessionTable)")
public enum CredentialEncryptionKey {}

@available(*, unavailable, message: "AuthFlowPostgres needs the package trait PostgreSQL (see PostgresSessionTable)")
public enum CredentialEncryptionKeys {}
#endif
