//! TLS to PostgreSQL, as libpq's `sslmode`, `sslrootcert`, `sslcert` and
//! `sslkey` ask for it (in the URI, or else in `PGSSLMODE`,
//! `PGSSLROOTCERT`, `PGSSLCERT` and `PGSSLKEY`), over rustls with the
//! crypto provider the CLI's HTTPS uses (ring). docs/deploy.md, "TLS to
//! PostgreSQL", has the table of modes.
//!
//! Everything is read and checked when the URI is parsed, so a missing or
//! unreadable certificate is a usage error before anything connects.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{
    CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
};
use tokio_postgres::config::SslMode;
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::env_vars::{EnvVar, PG_SSLCERT, PG_SSLKEY, PG_SSLMODE, PG_SSLROOTCERT};
use crate::error::{Failure, code};

/// The URI's parameters this module reads; [`super::target`] takes them out
/// before tokio-postgres parses the rest (it knows none but `sslmode`, and
/// not libpq's `allow` and `verify-*` for that).
pub(super) const KEYS: [&str; 4] = ["sslmode", "sslrootcert", "sslcert", "sslkey"];

/// A URI parameter's value by its name, as the URI's reader reads it.
pub(super) type InUri<'a> = dyn Fn(&str) -> Option<String> + 'a;

/// libpq's `sslrootcert=system`: the public CAs (Mozilla's, compiled in, as
/// the CLI's HTTPS uses), which only a check of the host name makes safe.
const SYSTEM: &str = "system";

/// libpq's sslmodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Disable,
    Allow,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl Mode {
    /// Each mode by its name in a URI.
    const NAMES: [(&'static str, Mode); 6] = [
        ("disable", Mode::Disable),
        ("allow", Mode::Allow),
        ("prefer", Mode::Prefer),
        ("require", Mode::Require),
        ("verify-ca", Mode::VerifyCa),
        ("verify-full", Mode::VerifyFull),
    ];

    fn parse(text: &str) -> Option<Mode> {
        Mode::NAMES
            .iter()
            .find(|(name, _)| *name == text)
            .map(|&(_, mode)| mode)
    }

    fn name(self) -> &'static str {
        Mode::NAMES
            .iter()
            .find(|(_, mode)| *mode == self)
            .map_or("", |(name, _)| name)
    }

    /// What tokio-postgres is asked for. `allow` (plain first, TLS only if
    /// the server insists) connects in plain text, as `disable` does.
    fn ssl_mode(self) -> SslMode {
        match self {
            Mode::Disable | Mode::Allow => SslMode::Disable,
            Mode::Prefer => SslMode::Prefer,
            Mode::Require | Mode::VerifyCa | Mode::VerifyFull => SslMode::Require,
        }
    }
}

/// A parameter as given: its value, and who gave it, for messages (the
/// URI's `sslrootcert`, or `PGSSLROOTCERT`).
struct Given {
    value: String,
    by: String,
}

impl Given {
    /// `key` from the URI's query (`in_uri` reads it), or else from
    /// libpq's variable `var` when it is set and not empty.
    fn read(in_uri: &InUri, key: &str, var: &EnvVar) -> Option<Given> {
        match in_uri(key) {
            Some(value) => Some(Given {
                value,
                by: format!("the URI's {key}"),
            }),
            None => std::env::var(var.name)
                .ok()
                .filter(|value| !value.trim().is_empty())
                .map(|value| Given {
                    value,
                    by: var.name.to_string(),
                }),
        }
    }
}

/// TLS as the URI asks for it: the mode tokio-postgres is given, and the
/// connector it uses whenever that mode lets it.
#[derive(Clone)]
pub(super) struct Tls {
    pub(super) ssl_mode: SslMode,
    pub(super) connector: MakeRustlsConnect,
}

impl Tls {
    /// Reads what the URI (its parameters, read by `in_uri`) and libpq's
    /// environment ask of TLS, and the files they name; a usage error names
    /// a parameter that cannot be used.
    pub(super) fn configure(in_uri: &InUri) -> Result<Tls, Failure> {
        let root = Given::read(in_uri, "sslrootcert", &PG_SSLROOTCERT);
        let system = root.as_ref().is_some_and(|r| r.value == SYSTEM);
        let asked = Given::read(in_uri, "sslmode", &PG_SSLMODE);
        let mode = match &asked {
            Some(given) => match Mode::parse(&given.value.trim().to_ascii_lowercase()) {
                Some(mode) => mode,
                None => {
                    return Err(invalid(
                        format!(
                            "{} asks for sslmode `{}`, which libpq does not have",
                            given.by,
                            crate::text::clip(&given.value, crate::text::ECHO_LIMIT)
                        ),
                        "Use sslmode=disable, allow, prefer, require, verify-ca or verify-full.",
                    ));
                }
            },
            // libpq: the public CAs are only safe with the host name checked.
            None if system => Mode::VerifyFull,
            None => Mode::Prefer,
        };
        if system && mode != Mode::VerifyFull {
            return Err(invalid(
                format!(
                    "sslrootcert=system trusts any public CA, so only the host name tells this server from another; sslmode={} does not check it",
                    mode.name()
                ),
                "Write sslmode=verify-full, or leave sslmode out (it then defaults to verify-full).",
            ));
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        // A mode that never speaks TLS reads no certificate file, as libpq
        // reads none: a default key of the wrong mode does not stop it.
        let (verifier, identity) = if mode.ssl_mode() == SslMode::Disable {
            let any: Arc<dyn ServerCertVerifier> = Arc::new(AnyCertificate(provider.clone()));
            (any, None)
        } else {
            (
                verifier(mode, root, asked.as_ref(), &provider)?,
                client_identity(in_uri)?,
            )
        };
        let builder = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(no_configuration)?
            .dangerous()
            .with_custom_certificate_verifier(verifier);
        let config = match identity {
            Some((chain, key)) => builder.with_client_auth_cert(chain, key).map_err(|e| {
                invalid(
                    format!("the client certificate and key cannot be used together: {e}"),
                    "Give sslcert and sslkey of one pair.",
                )
            })?,
            None => builder.with_no_client_auth(),
        };
        Ok(Tls {
            ssl_mode: mode.ssl_mode(),
            connector: MakeRustlsConnect::new(config),
        })
    }
}

/// What checks the server's certificate in `mode`: the chain against the
/// root certificates given (`root`, else libpq's default file), and the
/// host name too in `verify-full`; nothing without a root certificate in
/// `prefer` and `require`, as libpq.
fn verifier(
    mode: Mode,
    root: Option<Given>,
    asked: Option<&Given>,
    provider: &Arc<CryptoProvider>,
) -> Result<Arc<dyn ServerCertVerifier>, Failure> {
    let roots = match root {
        Some(given) if given.value == SYSTEM => Some(RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        }),
        Some(given) => Some(read_roots(Path::new(&given.value), &given.by)?),
        // libpq's default file, used only when it exists, unless a mode
        // that checks the chain needs it.
        None => match default_file("root.crt") {
            Some(path) if path.exists() => Some(read_roots(&path, "the default sslrootcert")?),
            path if matches!(mode, Mode::VerifyCa | Mode::VerifyFull) => {
                let shown = path.map_or_else(
                    || "~/.postgresql/root.crt".to_string(),
                    |p| p.display().to_string(),
                );
                let by = asked.map_or("the URI's sslmode", |given| &given.by);
                return Err(invalid(
                    format!(
                        "{by} asks for sslmode={}, which checks the server's certificate against a root certificate, and none is given ({shown} does not exist)",
                        mode.name()
                    ),
                    "Name the CA's certificate with sslrootcert=/path/to/ca.pem (or PGSSLROOTCERT), or write sslrootcert=system for a server with a certificate from a public CA.",
                ));
            }
            _ => None,
        },
    };
    Ok(match roots {
        // libpq checks the chain whenever it has a root certificate,
        // and the host name only in verify-full.
        Some(roots) => {
            let webpki =
                WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
                    .build()
                    .map_err(|e| {
                        invalid(
                            format!("the root certificates cannot be used: {e}"),
                            "Name a PEM file of CA certificates in sslrootcert.",
                        )
                    })?;
            match mode {
                Mode::VerifyFull => webpki,
                _ => Arc::new(ChainOnly(webpki)),
            }
        }
        None => Arc::new(AnyCertificate(provider.clone())),
    })
}

/// The client certificate and its key, from `sslcert` and `sslkey` (or
/// libpq's default files, used when the certificate's exists).
fn client_identity(
    in_uri: &InUri,
) -> Result<Option<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>)>, Failure> {
    let cert = Given::read(in_uri, "sslcert", &PG_SSLCERT);
    let key = Given::read(in_uri, "sslkey", &PG_SSLKEY);
    let (cert_path, cert_by) = match cert {
        Some(given) => (PathBuf::from(given.value), given.by),
        None => match default_file("postgresql.crt").filter(|path| path.exists()) {
            Some(path) => (path, "the default sslcert".to_string()),
            None if key.is_some() => {
                return Err(invalid(
                    "sslkey is given without sslcert, the certificate it goes with".to_string(),
                    "Give both sslcert and sslkey, or neither.",
                ));
            }
            None => return Ok(None),
        },
    };
    let (key_path, key_by) = match key {
        Some(given) => (PathBuf::from(given.value), given.by),
        None => (
            default_file("postgresql.key").unwrap_or_else(|| PathBuf::from("postgresql.key")),
            "the default sslkey".to_string(),
        ),
    };
    let chain = read_certificates(&cert_path, &cert_by)?;
    private_to_owner(&key_path, &key_by)?;
    let key = PrivateKeyDer::from_pem_file(&key_path)
        .map_err(|e| unreadable(&key_path, &key_by, Pem::Key, &e))?;
    Ok(Some((chain, key)))
}

/// The certificates in the PEM file at `path` (given by `by`): at least one.
fn read_certificates(path: &Path, by: &str) -> Result<Vec<CertificateDer<'static>>, Failure> {
    let certs = CertificateDer::pem_file_iter(path)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|e| unreadable(path, by, Pem::Certificate, &e))?;
    if certs.is_empty() {
        return Err(no_pem(path, by, Pem::Certificate));
    }
    Ok(certs)
}

/// The CA certificates in the PEM file at `path`.
fn read_roots(path: &Path, by: &str) -> Result<RootCertStore, Failure> {
    let certs = read_certificates(path, by)?;
    let mut roots = RootCertStore::empty();
    let (_, refused) = roots.add_parsable_certificates(certs);
    if roots.is_empty() {
        return Err(invalid(
            format!(
                "{by} ({}) holds no certificate usable as a root ({refused} refused)",
                path.display()
            ),
            "Name a PEM file of CA certificates.",
        ));
    }
    Ok(roots)
}

/// A private key file must be private to its owner, as libpq requires:
/// no access for others, and none for the group unless root owns it (a
/// key shared with a server's group) and the group may only read it.
fn private_to_owner(path: &Path, by: &str) -> Result<(), Failure> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path).map_err(|e| {
        invalid(
            format!("{by} ({}) cannot be read: {e}", path.display()),
            "Name the client certificate's key in sslkey.",
        )
    })?;
    let mode = meta.mode() & 0o777;
    let shared = match meta.uid() {
        0 => mode & 0o037 != 0,
        _ => mode & 0o077 != 0,
    };
    if shared {
        return Err(invalid(
            format!(
                "{by} ({}) can be read by others than its owner (mode {mode:o}), so it is not used",
                path.display()
            ),
            "chmod 600 the key file (0640 if root owns it), as libpq requires.",
        ));
    }
    Ok(())
}

/// libpq's default file `name` in `~/.postgresql`.
fn default_file(name: &str) -> Option<PathBuf> {
    directories::BaseDirs::new().map(|dirs| dirs.home_dir().join(".postgresql").join(name))
}

/// What a PEM file is read for.
#[derive(Clone, Copy)]
enum Pem {
    Certificate,
    Key,
}

impl Pem {
    fn name(self) -> &'static str {
        match self {
            Pem::Certificate => "certificate",
            Pem::Key => "unencrypted private key",
        }
    }

    /// How to mend a file that holds none.
    fn fix(self) -> &'static str {
        match self {
            Pem::Certificate => "Name a PEM file (-----BEGIN CERTIFICATE-----).",
            Pem::Key => {
                "Name the key in PEM (an encrypted key needs sslpassword, which this runtime does not take: decrypt it with openssl pkey)."
            }
        }
    }
}

fn unreadable(path: &Path, by: &str, what: Pem, e: &rustls::pki_types::pem::Error) -> Failure {
    use rustls::pki_types::pem::Error;
    match e {
        Error::NoItemsFound => no_pem(path, by, what),
        Error::Io(io) => invalid(
            format!("{by} ({}) cannot be read: {io}", path.display()),
            "Name a readable PEM file.",
        ),
        other => invalid(
            format!("{by} ({}) is not a PEM file: {other}", path.display()),
            "Name a PEM file.",
        ),
    }
}

fn no_pem(path: &Path, by: &str, what: Pem) -> Failure {
    invalid(
        format!("{by} ({}) holds no PEM {}", path.display(), what.name()),
        what.fix(),
    )
}

/// rustls refused its own provider's protocol versions: a bug, not a setting.
fn no_configuration(e: rustls::Error) -> Failure {
    Failure::new(code::SERVER_ERROR, format!("No TLS configuration: {e}."))
}

/// A usage error naming what is wrong with the URI's TLS parameters.
fn invalid(why: String, fix: &str) -> Failure {
    Failure::new(
        code::USAGE_ERROR,
        format!("The --db URI's TLS settings cannot be used: {why}."),
    )
    .field("db", fix)
}

/// A first connection that failed for TLS as the URI set it up, named as
/// a setting to fix (no retry changes it): a server that offers no TLS
/// where the mode requires it, or a certificate the URI does not trust.
/// `None` for anything else (a connection reset in the handshake is a
/// server going away, as any other).
pub(super) fn refusal(server: &str, e: &tokio_postgres::Error) -> Option<Failure> {
    // tokio-postgres says "error performing TLS handshake" for its TLS
    // errors, with the cause below it: its own text for a server that
    // answered no, or the io::Error tokio-rustls made of rustls's.
    if e.to_string() != "error performing TLS handshake" {
        return None;
    }
    let cause = std::error::Error::source(e)?;
    if cause.to_string() == "server does not support TLS" {
        return Some(
            Failure::new(
                code::USAGE_ERROR,
                format!(
                    "PostgreSQL at {server} does not offer TLS, which the URI's sslmode requires."
                ),
            )
            .field(
                "db",
                "Turn TLS on in the server (ssl = on), or connect with sslmode=prefer on a private network.",
            ),
        );
    }
    let rustls = cause
        .downcast_ref::<std::io::Error>()
        .and_then(|io| io.get_ref())
        .and_then(|inner| inner.downcast_ref::<rustls::Error>())?;
    match rustls {
        rustls::Error::InvalidCertificate(_) | rustls::Error::NoCertificatesPresented => Some(
            Failure::new(
                code::USAGE_ERROR,
                format!("The TLS certificate of PostgreSQL at {server} is not one the URI trusts: {rustls}."),
            )
            .field(
                "db",
                "Name the server's CA in sslrootcert, and a host its certificate is for (verify-full checks the name, verify-ca only the CA).",
            ),
        ),
        rustls::Error::AlertReceived(_) | rustls::Error::PeerIncompatible(_) => Some(
            Failure::new(
                code::USAGE_ERROR,
                format!("PostgreSQL at {server} refused the TLS handshake: {rustls}."),
            )
            .field(
                "db",
                "Check the client certificate (sslcert, sslkey) and the server's TLS settings.",
            ),
        ),
        _ => None,
    }
}

/// `sslmode=prefer` and `require` without a root certificate, as libpq:
/// the connection is encrypted, and the server's certificate is not
/// checked (only that the server holds its key).
#[derive(Debug)]
struct AnyCertificate(Arc<CryptoProvider>);

impl ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// `verify-ca` (and a weaker mode given a root certificate), as libpq: the
/// chain must lead to a root given, whatever host name it is for. webpki
/// checks the name only after the chain, so a name it refuses is a chain
/// it accepted.
#[derive(Debug)]
struct ChainOnly(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
        {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A self-signed certificate for `localhost` and its key, in PEM.
    fn certificate() -> (String, String) {
        let key = rcgen::KeyPair::generate().unwrap();
        let cert = rcgen::CertificateParams::new(vec!["localhost".to_string()])
            .unwrap()
            .self_signed(&key)
            .unwrap();
        (cert.pem(), key.serialize_pem())
    }

    /// `name` in `dir` holding `text`, with `mode`.
    fn file(dir: &Path, name: &str, text: &str, mode: u32) -> String {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        path.display().to_string()
    }

    /// [`Tls::configure`] of the parameters of `uri`.
    fn configure(uri: &str) -> Result<Tls, Failure> {
        Tls::configure(&|key| crate::runtime::store::postgres::target::query_value(uri, key))
    }

    fn refusal(uri: &str) -> String {
        match configure(uri) {
            Ok(_) => panic!("{uri} was accepted"),
            Err(failure) => {
                assert_eq!(failure.code, code::USAGE_ERROR.code, "{uri}");
                assert!(!failure.message.contains("s3cret"), "{}", failure.message);
                failure.message
            }
        }
    }

    #[test]
    fn each_sslmode_asks_for_what_libpq_does() {
        let dir = tempfile::tempdir().unwrap();
        let (cert, _) = certificate();
        let ca = file(dir.path(), "ca.pem", &cert, 0o644);
        for (mode, expected) in [
            ("disable", SslMode::Disable),
            ("allow", SslMode::Disable),
            ("prefer", SslMode::Prefer),
            ("require", SslMode::Require),
            ("REQUIRE", SslMode::Require),
            ("verify-ca", SslMode::Require),
            ("verify-full", SslMode::Require),
        ] {
            let uri = format!("postgres://al:s3cret@h/db?sslmode={mode}&sslrootcert={ca}");
            let tls = configure(&uri).unwrap_or_else(|f| panic!("{mode}: {}", f.message));
            assert_eq!(tls.ssl_mode, expected, "{mode}");
        }
        // The last one given wins, as in libpq.
        let tls = configure("postgres://h/db?sslmode=require&sslmode=disable").unwrap();
        assert_eq!(tls.ssl_mode, SslMode::Disable);
        // A mode that never speaks TLS reads no file it names.
        let tls = configure("postgres://h/db?sslmode=disable&sslrootcert=/nowhere&sslkey=/nowhere")
            .unwrap();
        assert_eq!(tls.ssl_mode, SslMode::Disable);
        // A misspelt mode is refused by name.
        let typo = refusal("postgres://al:s3cret@h/db?sslmode=verify-fulll");
        assert!(typo.contains("sslmode `verify-fulll`"), "{typo}");
    }

    #[test]
    fn a_mode_that_checks_the_certificate_needs_a_root_certificate_it_can_read() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope.pem").display().to_string();
        let message = refusal(&format!(
            "postgres://al:s3cret@h/db?sslmode=verify-full&sslrootcert={missing}"
        ));
        assert!(
            message.contains("the URI's sslrootcert") && message.contains(&missing),
            "{message}"
        );
        let not_pem = file(dir.path(), "ca.txt", "not a certificate\n", 0o644);
        let message = refusal(&format!(
            "postgres://h/db?sslmode=verify-ca&sslrootcert={not_pem}"
        ));
        assert!(message.contains("holds no PEM certificate"), "{message}");
        // Percent-encoded, as a URI's value may be.
        let (cert, _) = certificate();
        let ca = file(dir.path(), "c a.pem", &cert, 0o644);
        let encoded = ca.replace(' ', "%20");
        assert!(
            configure(&format!(
                "postgres://h/db?sslmode=verify-ca&sslrootcert={encoded}"
            ))
            .is_ok()
        );
    }

    #[test]
    fn the_public_cas_are_trusted_only_with_the_host_name_checked() {
        let tls = configure("postgres://h/db?sslrootcert=system").unwrap();
        assert_eq!(tls.ssl_mode, SslMode::Require);
        assert!(configure("postgres://h/db?sslrootcert=system&sslmode=verify-full").is_ok());
        for weak in ["require", "verify-ca", "prefer"] {
            let message = refusal(&format!(
                "postgres://h/db?sslrootcert=system&sslmode={weak}"
            ));
            assert!(message.contains(&format!("sslmode={weak}")), "{message}");
        }
    }

    #[test]
    fn a_client_key_others_can_read_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (cert, key) = certificate();
        let cert = file(dir.path(), "client.crt", &cert, 0o644);
        let shared = file(dir.path(), "shared.key", &key, 0o644);
        let message = refusal(&format!("postgres://h/db?sslcert={cert}&sslkey={shared}"));
        assert!(
            message.contains("mode 644") && message.contains(&shared),
            "{message}"
        );
        let private = file(dir.path(), "client.key", &key, 0o600);
        assert!(configure(&format!("postgres://h/db?sslcert={cert}&sslkey={private}")).is_ok());
        // A key alone names no certificate to show.
        let message = refusal(&format!("postgres://h/db?sslkey={private}"));
        assert!(message.contains("without sslcert"), "{message}");
        // A certificate file where the key should be.
        let wrong = file(
            dir.path(),
            "wrong.key",
            &std::fs::read_to_string(&cert).unwrap(),
            0o600,
        );
        let message = refusal(&format!("postgres://h/db?sslcert={cert}&sslkey={wrong}"));
        assert!(
            message.contains("holds no PEM unencrypted private key"),
            "{message}"
        );
    }
}
