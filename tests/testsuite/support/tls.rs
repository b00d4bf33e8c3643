//! TLS for PostgreSQL clusters of the tests: a CA of the test's own, made
//! at run time (nothing in the repository expires), and a cluster that
//! speaks TLS with it and takes TCP connections only over TLS.

use super::postgres::Cluster;

/// The user that logs in with a client certificate (`cert` in pg_hba.conf:
/// the certificate's common name is the user).
pub const CERT_USER: &str = "certuser";

/// Every TCP connection must be TLS; the superuser logs in with its
/// password, [`CERT_USER`] with its certificate.
const HBA: &str = "local all all trust\n\
    hostnossl all all 0.0.0.0/0 reject\n\
    hostssl all agentteam 127.0.0.1/32 scram-sha-256\n\
    hostssl all certuser 127.0.0.1/32 cert\n";

/// A CA, and certificates it signed, in PEM.
pub struct Pki {
    pub ca: String,
    pub server_cert: String,
    pub server_key: String,
    pub client_cert: String,
    pub client_key: String,
}

/// A fresh CA and a server certificate for `names` (DNS names or IP
/// addresses), and a client certificate for [`CERT_USER`].
pub fn pki(names: &[&str]) -> Pki {
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    // A name of its own: another CA of the same name would be taken for
    // the issuer, and refused for its signature rather than as unknown.
    static CAS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(1);
    let serial = CAS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    ca_params.distinguished_name.push(
        rcgen::DnType::CommonName,
        format!("agentteam test CA {serial}"),
    );
    let ca = rcgen::CertifiedIssuer::self_signed(ca_params, ca_key).unwrap();
    let leaf = |names: Vec<String>, common_name: &str| {
        let key = rcgen::KeyPair::generate().unwrap();
        let mut params = rcgen::CertificateParams::new(names).unwrap();
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, common_name);
        let cert = params.signed_by(&key, &ca).unwrap();
        (cert.pem(), key.serialize_pem())
    };
    let (server_cert, server_key) = leaf(names.iter().map(ToString::to_string).collect(), "db");
    let (client_cert, client_key) = leaf(Vec::new(), CERT_USER);
    Pki {
        ca: ca.as_ref().pem(),
        server_cert,
        server_key,
        client_cert,
        client_key,
    }
}

/// A cluster that speaks TLS with `pki`'s server certificate, asks clients
/// for certificates of its CA, and takes TCP connections only over TLS.
pub fn tls_cluster(pki: &Pki) -> Cluster {
    Cluster::start_with_files(
        &[
            ("ssl", "on"),
            ("ssl_cert_file", "{dir}/server.crt"),
            ("ssl_key_file", "{dir}/server.key"),
            ("ssl_ca_file", "{dir}/ca.crt"),
            ("hba_file", "{dir}/pg_hba.conf"),
        ],
        &[
            ("server.crt", &pki.server_cert),
            ("server.key", &pki.server_key),
            ("ca.crt", &pki.ca),
            ("pg_hba.conf", HBA),
        ],
    )
}
