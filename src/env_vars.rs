//! Every environment variable either binary reads, declared once: the code
//! reads them through these constants and the man pages' ENVIRONMENT
//! sections and the README are generated from [`ALL`].

/// The default of `--timeout` and AGENTTEAM_TIMEOUT, in seconds: a literal,
/// so that the variable's description below can state it with `concat!`.
macro_rules! default_timeout_seconds {
    () => {
        30
    };
}
pub(crate) use default_timeout_seconds;

pub struct EnvVar {
    pub name: &'static str,
    pub binary: &'static str,
    pub description: &'static str,
}

pub const CONFIG_DIR: EnvVar = EnvVar {
    name: "AGENTTEAM_CONFIG_DIR",
    binary: "agentteam",
    description: "Directory of the credential store (credentials.json). Default: the platform config dir, e.g. ~/.config/agentteam.",
};
pub const PROFILE: EnvVar = EnvVar {
    name: "AGENTTEAM_PROFILE",
    binary: "agentteam",
    description: "Profile to use when --profile is not given; empty counts as unset. Default: the store's default profile, else `default`.",
};
pub const TIMEOUT: EnvVar = EnvVar {
    name: "AGENTTEAM_TIMEOUT",
    binary: "agentteam",
    description: concat!(
        "Seconds one HTTP attempt may take when --timeout is not given, 1 to 3600; empty counts as unset. Default ",
        default_timeout_seconds!(),
        "."
    ),
};
pub const WORKFLOW_RUN_ID: EnvVar = EnvVar {
    name: "AGENTTEAM_WORKFLOW_RUN_ID",
    binary: "agentteam",
    description: "Set by the runtime that launches an agent: the active workflow run, sent with task.create only beside an idempotency_key.",
};
pub const CALLBACK_EFFECT_ID: EnvVar = EnvVar {
    name: "AGENTTEAM_CALLBACK_EFFECT_ID",
    binary: "agentteam",
    description: "Set by the runtime that launches an agent: the active callback effect, sent with task.create only beside an idempotency_key.",
};
pub const RUNTIME_DB: EnvVar = EnvVar {
    name: "AGENTTEAM_RUNTIME_DB",
    binary: "agentteam-runtime",
    description: "Store of agentteam-runtime when --db is not given: a SQLite file path or a postgres:// URI. Default: runtime.db in the platform data dir.",
};
pub const PG_PASSWORD: EnvVar = EnvVar {
    name: "PGPASSWORD",
    binary: "agentteam-runtime",
    description: "PostgreSQL password when the --db URI has none (as libpq reads it).",
};
pub const PG_USER: EnvVar = EnvVar {
    name: "PGUSER",
    binary: "agentteam-runtime",
    description: "PostgreSQL user when the --db URI names none (as libpq reads it). Default: the operating system user.",
};
pub const PG_PASSFILE: EnvVar = EnvVar {
    name: "PGPASSFILE",
    binary: "agentteam-runtime",
    description: "PostgreSQL password file when the --db URI has no password and PGPASSWORD is unset. Default: ~/.pgpass (ignored unless private to its owner).",
};
pub const PG_HOST: EnvVar = EnvVar {
    name: "PGHOST",
    binary: "agentteam-runtime",
    description: "PostgreSQL host(s) when the --db URI names none (as libpq reads it; a path is a socket directory). Default: /var/run/postgresql, then localhost.",
};
pub const PG_PORT: EnvVar = EnvVar {
    name: "PGPORT",
    binary: "agentteam-runtime",
    description: "PostgreSQL port when the --db URI names none (as libpq reads it). Default: 5432.",
};
pub const PG_DATABASE: EnvVar = EnvVar {
    name: "PGDATABASE",
    binary: "agentteam-runtime",
    description: "PostgreSQL database when the --db URI names none (as libpq reads it). Default: the user's name.",
};
pub const PG_SSLMODE: EnvVar = EnvVar {
    name: "PGSSLMODE",
    binary: "agentteam-runtime",
    description: "sslmode when the --db URI gives none (as libpq reads it): disable, allow, prefer (the default), require, verify-ca or verify-full; docs/deploy.md has what each checks.",
};
pub const PG_SSLROOTCERT: EnvVar = EnvVar {
    name: "PGSSLROOTCERT",
    binary: "agentteam-runtime",
    description: "sslrootcert when the --db URI gives none: a PEM file of the CA certificates the server's must lead to, or `system` for the public CAs. Default ~/.postgresql/root.crt when it exists.",
};
pub const PG_SSLCERT: EnvVar = EnvVar {
    name: "PGSSLCERT",
    binary: "agentteam-runtime",
    description: "sslcert when the --db URI gives none: the client certificate (PEM) shown to the server. Default ~/.postgresql/postgresql.crt when it exists.",
};
pub const PG_SSLKEY: EnvVar = EnvVar {
    name: "PGSSLKEY",
    binary: "agentteam-runtime",
    description: "sslkey when the --db URI gives none: the client certificate's unencrypted private key (PEM, mode 0600). Default ~/.postgresql/postgresql.key.",
};
pub const RUNTIME_LOG: EnvVar = EnvVar {
    name: "RUST_LOG",
    binary: "agentteam-runtime",
    description: "Log filter for agentteam-runtime's stderr log (tracing syntax, e.g. `warn` or `agentteam=debug`). Default `info`.",
};
pub const NO_COLOR: EnvVar = EnvVar {
    name: "NO_COLOR",
    binary: "agentteam",
    description: "When set to a non-empty value, output is never coloured.",
};
pub const TERM: EnvVar = EnvVar {
    name: "TERM",
    binary: "agentteam",
    description: "`dumb`: no colour and no progress line (such a terminal shows escapes as text).",
};

pub const ALL: &[&EnvVar] = &[
    &CONFIG_DIR,
    &PROFILE,
    &TIMEOUT,
    &WORKFLOW_RUN_ID,
    &CALLBACK_EFFECT_ID,
    &RUNTIME_DB,
    &PG_PASSWORD,
    &PG_USER,
    &PG_PASSFILE,
    &PG_HOST,
    &PG_PORT,
    &PG_DATABASE,
    &PG_SSLMODE,
    &PG_SSLROOTCERT,
    &PG_SSLCERT,
    &PG_SSLKEY,
    &RUNTIME_LOG,
    &NO_COLOR,
    &TERM,
];
