//! A PostgreSQL database as `--db` names it: a libpq-style URI
//! (`postgres://` or `postgresql://`, with `?host=/socket/dir` for a Unix
//! socket), parsed by tokio-postgres, completed as libpq would (a default
//! host, the password from `PGPASSWORD` or the password file), and shown
//! only without its password.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use tokio_postgres::config::{Host, SslMode};

use crate::env_vars::{PG_DATABASE, PG_HOST, PG_PORT};

use crate::error::{Failure, code};

/// Where the runtime looks for the server when the URI names no host:
/// Debian's socket directory, then the loopback address, as libpq does.
const DEFAULT_SOCKET_DIR: &str = "/var/run/postgresql";
const DEFAULT_PORT: u16 = 5432;
/// A connection attempt that takes longer fails (libpq waits forever by
/// default; a runtime must answer 503 promptly instead).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// TCP keepalive idle time, so a peer that vanished without a reset is
/// noticed in about a minute rather than the kernel's two hours.
const KEEPALIVE_IDLE: Duration = Duration::from_secs(30);
/// tokio-postgres's own keepalive idle time, which the URI did not change.
const LIBRARY_KEEPALIVE_IDLE: Duration = Duration::from_secs(2 * 60 * 60);
/// Sent data unacknowledged this long closes the connection, so a request
/// on a connection to a vanished server fails within seconds.
const TCP_USER_TIMEOUT: Duration = Duration::from_secs(10);

/// A parsed, completed PostgreSQL target.
#[derive(Clone)]
pub struct Target {
    pub(super) config: tokio_postgres::Config,
    /// The TLS connector the config's sslmode uses (docs/deploy.md).
    pub(super) tls: tokio_postgres_rustls::MakeRustlsConnect,
    /// The URI as given, without its password: for output, logs and argv.
    shown: String,
    /// Whether the URI carried a password that [`Target::shown`] drops.
    password_in_uri: bool,
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.shown)
    }
}

impl Target {
    /// Parses `uri`, which starts with `postgres://` or `postgresql://`.
    /// The error names what is wrong and never repeats the password.
    pub fn parse(uri: &str) -> Result<Target, Failure> {
        let shown = without_password(uri);
        // A refusal never quotes the URI: what it holds may not be where
        // its writer meant it (a password's tail read as the host).
        let unusable = |why: &dyn std::fmt::Display| {
            Failure::new(
                code::USAGE_ERROR,
                format!("The --db URI is not a PostgreSQL URI this runtime can use: {why}."),
            )
            .field(
                "db",
                "Use postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE or ?host=/socket/dir.",
            )
        };
        // tokio-postgres keeps a broken escape as its text (a user named
        // `b%zz`); libpq refuses it, and so does the runtime. The escape is
        // not quoted: it may be in the password.
        if has_broken_escape(uri) {
            return Err(unusable(
                &"a `%` that is not followed by two hex digits (write a literal % as %25)",
            ));
        }
        // TLS as libpq reads it (the URI's sslmode, sslrootcert, sslcert and
        // sslkey, else PGSSL*), its files read now.
        let tls = super::tls::Tls::configure(&|key| query_value(uri, key))?;
        // tokio-postgres's own text is "invalid connection string"; what is
        // wrong (`invalid value for option \`port\``) is in its causes.
        // PGPORT where the URI names no port, as libpq takes it (whether
        // or not the URI names a host, which tokio-postgres would give
        // 5432).
        let with_port;
        let ported = match from_env(&PG_PORT).filter(|_| !names_a_port(uri)) {
            Some(port) => {
                let port: u16 = port
                    .trim()
                    .parse()
                    .map_err(|_| unusable(&"PGPORT is not a port number"))?;
                let joiner = if uri.contains('?') { '&' } else { '?' };
                with_port = format!("{uri}{joiner}port={port}");
                with_port.as_str()
            }
            None => uri,
        };
        let parsed = query_ports_to_hosts(ported);
        let parsed = without_keys(&parsed, &super::tls::KEYS);
        let mut config = tokio_postgres::Config::from_str(&parsed).map_err(|e| {
            let why = with_causes(&e);
            // A second `@` before the path: a user or password with one
            // left as it is, whose tail was read as host and port.
            if authority(uri).matches('@').count() > 1 {
                unusable(&format!(
                    "{why}; an `@` in a user or password is written %40 (and `:`, `/`, `?`, `#` as %3A, %2F, %3F, %23)"
                ))
            } else {
                unusable(&why)
            }
        })?;
        // A NUL, which libpq refuses in any value: tokio-postgres would send
        // it, and the server's refusal would read as a server unreachable.
        let nul = [
            ("user", config.get_user().map(str::as_bytes)),
            ("database name", config.get_dbname().map(str::as_bytes)),
            ("password", config.get_password()),
        ]
        .into_iter()
        .find(|(_, value)| value.is_some_and(|value| value.contains(&0)));
        if let Some((what, _)) = nul {
            return Err(unusable(&format_args!(
                "its {what} holds %00, a NUL, which no PostgreSQL name or password can"
            )));
        }
        // The user info ends at the first `@`: what follows a second one (a
        // user or password with an `@` left as it is, or `user@server` in
        // the query) was read as the host.
        // Other hosts that are none are said by what they are instead.
        let odd = config.get_hosts().iter().find_map(|host| match host {
            Host::Tcp(name) if !is_plain_host(name) => Some(name.as_str()),
            _ => None,
        });
        match odd {
            Some("") => {
                return Err(unusable(
                    &"its host is empty (`@:PORT`, or `?host=` with no value): name the server, or leave the host out for the local socket",
                ));
            }
            Some(name) if name.contains('@') => {
                return Err(unusable(
                    &"its host is not a host name; an `@` in a user or password is written %40 (and `:`, `/`, `?`, `#` as %3A, %2F, %3F, %23)",
                ));
            }
            Some(name) if name.contains('/') => {
                return Err(unusable(
                    &"its host is a relative path; a socket directory is an absolute path (`?host=/run/postgresql`)",
                ));
            }
            Some(name) if name.contains('%') && name.contains(':') => {
                return Err(unusable(
                    &"its host is an IPv6 address with a zone (`%eth0`), which this runtime cannot connect to: give the address without it, or a host name",
                ));
            }
            Some(_) => {
                return Err(unusable(
                    &"its host is not a host name (a space, a comma or one of `&=?#%` in it); an `@` in a user or password is written %40",
                ));
            }
            None => {}
        }
        config.ssl_mode(tls.ssl_mode);
        // What the URI leaves out, libpq takes from the environment.
        if config.get_user().is_none_or(str::is_empty) {
            // As libpq and tokio-postgres do; set here so that messages and
            // the password file name the user the connection will use.
            config.user(default_user());
        }
        if config.get_dbname().is_none()
            && let Some(dbname) = from_env(&PG_DATABASE)
        {
            config.dbname(dbname);
        }
        if config.get_hosts().is_empty() && config.get_hostaddrs().is_empty() {
            match from_env(&PG_HOST) {
                Some(hosts) => {
                    for host in hosts.split(',').map(str::trim) {
                        match host.starts_with('/') {
                            true => config.host_path(host),
                            false => config.host(host),
                        };
                    }
                }
                None => {
                    config.host_path(DEFAULT_SOCKET_DIR);
                    config.host("localhost");
                }
            }
        }

        // PostgreSQL speaks no TLS on a Unix socket, and libpq asks for none
        // there whatever the sslmode: the socket's own permissions guard it.
        if config
            .get_hosts()
            .iter()
            .all(|host| matches!(host, Host::Unix(_)))
            && config.get_hostaddrs().is_empty()
        {
            config.ssl_mode(SslMode::Disable);
        }
        // Said now, by name, rather than as a connection failure later.
        let hosts = config.get_hosts().len().max(config.get_hostaddrs().len());
        let ports = config.get_ports().len();
        if ports > 1 && ports != hosts {
            return Err(unusable(&format_args!(
                "it gives {ports} ports for {hosts} host(s) (a port both after the host and in `?port=`?)"
            )));
        }
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        if config.get_keepalives_idle() == LIBRARY_KEEPALIVE_IDLE {
            config.keepalives_idle(KEEPALIVE_IDLE);
        }
        if config.get_tcp_user_timeout().is_none() {
            config.tcp_user_timeout(TCP_USER_TIMEOUT);
        }
        if config.get_application_name().is_none() {
            config.application_name("agentteam-runtime");
        }
        if config.get_password().is_none()
            && let Some(password) = password_from_environment(&config)
        {
            config.password(password);
        }
        let password_in_uri = shown != uri;
        Ok(Target {
            config,
            tls: tls.connector,
            shown,
            password_in_uri,
        })
    }

    /// The URI without its password: safe to print, log and pass in argv.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// Whether the URI itself carried a password (which [`Target::shown`]
    /// drops, so a process started with it must find the password in
    /// `PGPASSWORD` or the password file instead).
    pub fn had_password(&self) -> bool {
        self.password_in_uri
    }

    /// `user@host:port/db`, for messages that say which server failed: the
    /// URI's first host.
    pub(super) fn server(&self) -> String {
        self.server_at(0)
    }

    /// [`Target::server`] for a connection none of the URI's hosts took:
    /// the last host, whose answer tokio-postgres returns once it has tried
    /// each in turn, said to be so when there are several (a wrong password
    /// on the first host is hidden behind a refusal by the last).
    pub(super) fn refused_by(&self) -> String {
        match self.hosts().len() {
            0 | 1 => self.server(),
            n => format!(
                "{} (the last of its {n} hosts, each tried in turn)",
                self.server_at(n - 1)
            ),
        }
    }

    /// The URI's hosts as written, or its `hostaddr`s when it names none.
    fn hosts(&self) -> Vec<String> {
        match self.config.get_hosts() {
            [] => self
                .config
                .get_hostaddrs()
                .iter()
                .map(ToString::to_string)
                .collect(),
            hosts => hosts
                .iter()
                .map(|host| match host {
                    Host::Tcp(name) => name.clone(),
                    Host::Unix(dir) => dir.display().to_string(),
                })
                .collect(),
        }
    }

    /// `user@host:port/db` of the URI's host `at`, its own port or the one
    /// port all share.
    fn server_at(&self, at: usize) -> String {
        let host = match self.hosts().get(at) {
            // An IPv6 address before its port, as URIs write it.
            Some(host) if host.contains(':') && !host.starts_with('/') => format!("[{host}]"),
            Some(host) => host.clone(),
            None => "?".to_string(),
        };
        let ports = self.config.get_ports();
        let port = ports
            .get(at)
            .or(ports.first())
            .copied()
            .unwrap_or(DEFAULT_PORT);
        format!(
            "{}@{host}:{port}/{}",
            self.user(),
            self.config.get_dbname().unwrap_or(self.user())
        )
    }

    /// How long one connection attempt may take.
    pub(super) fn connect_timeout(&self) -> Duration {
        self.config
            .get_connect_timeout()
            .copied()
            .unwrap_or(CONNECT_TIMEOUT)
    }

    pub(super) fn user(&self) -> &str {
        self.config.get_user().unwrap_or_default()
    }

    pub(super) fn dbname(&self) -> &str {
        self.config.get_dbname().unwrap_or(self.user())
    }
}

/// Whether `db` names a PostgreSQL database rather than a file.
pub fn is_uri(db: &str) -> bool {
    ["postgres://", "postgresql://"]
        .iter()
        .any(|scheme| db.len() >= scheme.len() && db[..scheme.len()].eq_ignore_ascii_case(scheme))
}

/// Whether `db` reads as a libpq key=value connection string: `KEY=…` (or
/// `KEY = …`, as libpq allows) for one of libpq's connection keywords. A
/// path written as one (`./NAME`, `/…`) is a path.
pub fn is_conninfo(db: &str) -> bool {
    const KEYS: [&str; 38] = [
        "host",
        "hostaddr",
        "port",
        "dbname",
        "user",
        "password",
        "passfile",
        "require_auth",
        "channel_binding",
        "connect_timeout",
        "client_encoding",
        "options",
        "application_name",
        "fallback_application_name",
        "keepalives",
        "keepalives_idle",
        "keepalives_interval",
        "keepalives_count",
        "tcp_user_timeout",
        "replication",
        "gssencmode",
        "sslmode",
        "requiressl",
        "sslcompression",
        "sslcert",
        "sslkey",
        "sslpassword",
        "sslcertmode",
        "sslrootcert",
        "sslcrl",
        "sslcrldir",
        "sslsni",
        "requirepeer",
        "ssl_min_protocol_version",
        "ssl_max_protocol_version",
        "krbsrvname",
        "service",
        "target_session_attrs",
    ];
    if db.starts_with("./") || db.starts_with('/') || db.starts_with("../") {
        return false;
    }
    // `host = x` read as `host=x`.
    let mut joined = String::with_capacity(db.len());
    for part in db.split('=') {
        if !joined.is_empty() {
            joined.push('=');
        }
        joined.push_str(if joined.is_empty() {
            part.trim_end()
        } else {
            part.trim()
        });
    }
    joined.split_ascii_whitespace().any(|word| {
        word.split_once('=')
            .is_some_and(|(key, _)| KEYS.contains(&key.to_ascii_lowercase().as_str()))
    })
}

/// Whether `db` is a PostgreSQL URI with its `:` slipped (`postgres//…`,
/// `postgresql;//…`): a path it must never be taken for.
pub fn is_mistyped_uri(db: &str) -> bool {
    db.split_once("//").is_some_and(|(scheme, _)| {
        let word = scheme
            .strip_suffix(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(scheme);
        !is_uri(db) && is_uri(&format!("{word}://"))
    })
}

/// The part of `uri` between its `://` and the path or query that follows.
fn authority(uri: &str) -> &str {
    let rest = uri.split_once("://").map_or(uri, |(_, rest)| rest);
    rest.split(['/', '?']).next().unwrap_or(rest)
}

/// A URI's parts as tokio-postgres splits them: the user info up to the
/// first `@`, the hosts up to the next `/` or `?`, the path, the query.
struct Parts<'a> {
    scheme: &'a str,
    userinfo: Option<&'a str>,
    hosts: &'a str,
    path: &'a str,
    query: Option<&'a str>,
}

impl Parts<'_> {
    fn of(uri: &str) -> Option<Parts<'_>> {
        let (scheme, rest) = uri.split_once("://")?;
        let (userinfo, after) = match rest.split_once('@') {
            Some((userinfo, after)) => (Some(userinfo), after),
            None => (None, rest),
        };
        let (hosts, remainder) = after.split_at(after.find(['/', '?']).unwrap_or(after.len()));
        let (path, query) = match remainder.split_once('?') {
            Some((path, query)) => (path, Some(query)),
            None => (remainder, None),
        };
        Some(Parts {
            scheme,
            userinfo,
            hosts,
            path,
            query,
        })
    }

    /// The URI again, with the user info given and the query's pairs kept.
    fn join(&self, userinfo: Option<&str>, hosts: &str, pairs: &[&str]) -> String {
        let userinfo = userinfo.map_or(String::new(), |info| format!("{info}@"));
        let query = if pairs.is_empty() {
            String::new()
        } else {
            format!("?{}", pairs.join("&"))
        };
        format!("{}://{userinfo}{hosts}{}{query}", self.scheme, self.path)
    }

    fn pairs(&self) -> Vec<&str> {
        self.query
            .map_or(Vec::new(), |query| query.split('&').collect())
    }

    /// The query's pairs but those of a parameter in `keys`.
    fn pairs_without(&self, keys: &[&str]) -> Vec<&str> {
        self.pairs()
            .into_iter()
            .filter(|pair| !keys.iter().any(|key| is_pair_of(pair, key)))
            .collect()
    }
}

/// Whether the query pair `pair` (`key=value`) is of parameter `key`: its
/// name percent-decoded, in any case, as libpq reads it.
fn is_pair_of(pair: &str, key: &str) -> bool {
    let name = pair.split('=').next().unwrap_or_default();
    percent_encoding::percent_decode_str(name)
        .decode_utf8_lossy()
        .trim()
        .eq_ignore_ascii_case(key)
}

/// `uri` with any password removed: from the user info
/// (`user:secret@host` → `user@host`) and from a `password=` parameter.
///
/// The user info is read as the parser reads it ([`Parts`]): the user up
/// to its first `:`. A password with an `@` its writer did not
/// percent-encode would leave its tail where the host is; such a URI is
/// refused ([`Target::parse`]) and never shown, as no refusal of a URI
/// quotes it.
fn without_password(uri: &str) -> String {
    let Some(parts) = Parts::of(uri) else {
        return uri.to_string();
    };
    let user = parts
        .userinfo
        .map(|info| info.split_once(':').map_or(info, |(user, _)| user));
    parts.join(user, parts.hosts, &parts.pairs_without(&["password"]))
}

/// `uri` with a `?port=` moved onto hosts that name no port of their own
/// (`postgres://h/db?port=5433` → `postgres://h:5433/db`), which libpq
/// reads as the hosts' port; tokio-postgres would give those hosts 5432
/// and then count one port too many. One port applies to every host, or
/// one per host in order. Anything else is left for the parser to judge.
fn query_ports_to_hosts(uri: &str) -> std::borrow::Cow<'_, str> {
    use std::borrow::Cow;
    let Some(parts) = Parts::of(uri) else {
        return Cow::Borrowed(uri);
    };
    let chunks: Vec<&str> = parts.hosts.split(',').collect();
    let has_port = |chunk: &str| match chunk.rfind(']') {
        Some(end) => chunk[end..].contains(':'),
        None => chunk.contains(':'),
    };
    if parts.hosts.is_empty() || chunks.iter().any(|chunk| has_port(chunk)) {
        return Cow::Borrowed(uri);
    }
    let (ports, kept): (Vec<&str>, Vec<&str>) = parts
        .pairs()
        .into_iter()
        .partition(|pair| pair.starts_with("port="));
    let [ports] = ports.as_slice() else {
        return Cow::Borrowed(uri);
    };
    let ports: Vec<&str> = ports["port=".len()..].split(',').collect();
    if ports.len() != 1 && ports.len() != chunks.len() {
        return Cow::Borrowed(uri);
    }
    let hosts: Vec<String> = chunks
        .iter()
        .enumerate()
        .map(|(i, chunk)| format!("{chunk}:{}", ports[if ports.len() == 1 { 0 } else { i }]))
        .collect();
    Cow::Owned(parts.join(parts.userinfo, &hosts.join(","), &kept))
}

/// Whether a host name the parser read could be one: not a piece of a
/// password or a parameter that landed there (an unencoded `@` in the user
/// info, or `user@server` in the query, moves what follows it there).
fn is_plain_host(host: &str) -> bool {
    !host.is_empty()
        && !host
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || "@&=?/#%,".contains(c))
}

/// The user libpq connects as when the URI names none: `PGUSER`, else the
/// operating system's name for the effective user.
fn default_user() -> String {
    if let Some(user) = std::env::var(crate::env_vars::PG_USER.name)
        .ok()
        .filter(|user| !user.is_empty())
    {
        return user;
    }
    // The name tokio-postgres itself falls back to.
    whoami::username().unwrap_or_default()
}

/// The password libpq would use when the URI has none: `PGPASSWORD`, else
/// the first matching line of `PGPASSFILE` or `~/.pgpass`.
fn password_from_environment(config: &tokio_postgres::Config) -> Option<String> {
    use crate::env_vars::PG_PASSWORD;
    if let Some(password) = std::env::var(PG_PASSWORD.name)
        .ok()
        .filter(|p| !p.is_empty())
    {
        return Some(password);
    }
    let text = read_private(&passfile()?)?;
    let user = config.get_user().unwrap_or_default();
    let dbname = config.get_dbname().unwrap_or(user);
    // One password serves every host of a multi-host URI: that of the
    // first host with a line, as the hosts are tried in turn.
    let hosts = config.get_hosts();
    let ports = config.get_ports();
    (0..hosts.len().max(1)).find_map(|i| {
        let host = passfile_host(hosts.get(i));
        // libpq: one port for all hosts, or one per host.
        let port = ports
            .get(i)
            .or_else(|| ports.first().filter(|_| ports.len() == 1))
            .copied()
            .unwrap_or(DEFAULT_PORT)
            .to_string();
        passfile_lookup(&text, &host, &port, dbname, user)
    })
}

/// The password file libpq would read: `PGPASSFILE`, else `~/.pgpass`.
fn passfile() -> Option<PathBuf> {
    std::env::var_os(crate::env_vars::PG_PASSFILE.name)
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".pgpass")))
}

/// The password file and its mode, when one exists but is ignored because
/// others may read it (libpq warns of it; a message asking for a password
/// says it).
pub(super) fn ignored_passfile() -> Option<(PathBuf, u32)> {
    use std::os::unix::fs::PermissionsExt;
    let path = passfile()?;
    let meta = std::fs::metadata(&path).ok()?;
    let mode = meta.permissions().mode() & 0o777;
    (meta.is_file() && mode & 0o077 != 0).then_some((path, mode))
}

/// The host a password file line is matched against, as libpq's
/// `passwordFromFile` has it: a TCP host by name; `localhost` for no host
/// or the default socket directory; any other socket directory by its path
/// (so a line psql and pg_dump use for `?host=/srv/pg` serves here too).
fn passfile_host(host: Option<&Host>) -> String {
    match host {
        Some(Host::Tcp(name)) => name.clone(),
        Some(Host::Unix(dir)) if dir.as_os_str() != DEFAULT_SOCKET_DIR => {
            dir.to_string_lossy().into_owned()
        }
        Some(Host::Unix(_)) | None => "localhost".to_string(),
    }
}

/// The password file is ignored unless only its owner can read it, as
/// libpq does.
fn read_private(path: &Path) -> Option<String> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.permissions().mode() & 0o077 != 0 {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// The password of the first `host:port:database:user:password` line that
/// matches (`*` matches anything; `\:` and `\\` escape).
fn passfile_lookup(text: &str, host: &str, port: &str, dbname: &str, user: &str) -> Option<String> {
    for line in text.lines() {
        if line.trim_start().starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let fields = split_escaped(line);
        // The password ends at the next unescaped `:`, as libpq reads it:
        // one line serves the runtime exactly as it serves psql and pg_dump.
        let [h, p, d, u, password, ..] = fields.as_slice() else {
            continue;
        };
        let matches = |field: &str, value: &str| field == "*" || field == value;
        if matches(h, host) && matches(p, port) && matches(d, dbname) && matches(u, user) {
            return Some(password.clone());
        }
    }
    None
}

fn split_escaped(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut chars = line.chars();
    while let Some(ch) = chars.next() {
        match ch {
            '\\' => {
                if let Some(next) = chars.next()
                    && let Some(f) = fields.last_mut()
                {
                    f.push(next)
                }
            }
            ':' => fields.push(String::new()),
            other => {
                if let Some(field) = fields.last_mut() {
                    field.push(other);
                }
            }
        }
    }
    fields
}

/// `e` and each error it was caused by, `outer: inner: …`: tokio-postgres
/// puts what went wrong in the causes and a generic line on top.
pub(super) fn with_causes(e: &dyn std::error::Error) -> String {
    std::iter::successors(Some(e), |s| s.source())
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(": ")
}

/// Whether `uri` names a port: after a host (`h:5432`, `[::1]:5432`) or as
/// `?port=`.
fn names_a_port(uri: &str) -> bool {
    let Some(parts) = Parts::of(uri) else {
        return false;
    };
    let after_host = parts.hosts.split(',').any(|chunk| match chunk.rfind(']') {
        Some(end) => chunk[end..].contains(':'),
        None => chunk.contains(':'),
    });
    after_host
        || parts.pairs().iter().any(|pair| {
            pair.split_once('=')
                .is_some_and(|(key, _)| key.trim().eq_ignore_ascii_case("port"))
        })
}

/// A variable libpq reads, when set and not empty.
fn from_env(var: &crate::env_vars::EnvVar) -> Option<String> {
    std::env::var(var.name)
        .ok()
        .filter(|value| !value.trim().is_empty())
}

/// The value of `key` in `uri`'s query (its name in any case), the last one
/// given, percent-decoded: as libpq reads a parameter.
pub(super) fn query_value(uri: &str, key: &str) -> Option<String> {
    Parts::of(uri)?
        .pairs()
        .into_iter()
        .filter(|pair| is_pair_of(pair, key))
        .filter_map(|pair| pair.split_once('='))
        .map(|(_, value)| {
            percent_encoding::percent_decode_str(value.trim())
                .decode_utf8_lossy()
                .into_owned()
        })
        .next_back()
}

/// `uri` without the parameters named in `keys`, which [`Target::parse`]
/// reads itself (tokio-postgres knows none but `sslmode`, and refuses
/// libpq's `allow` and `verify-*` for that).
fn without_keys(uri: &str, keys: &[&str]) -> String {
    match Parts::of(uri) {
        Some(parts) => parts.join(parts.userinfo, parts.hosts, &parts.pairs_without(keys)),
        None => uri.to_string(),
    }
}

/// Whether `uri` has a `%` that does not start a percent escape (`%` and
/// two hex digits).
fn has_broken_escape(uri: &str) -> bool {
    let bytes = uri.as_bytes();
    bytes.iter().enumerate().any(|(at, &b)| {
        b == b'%'
            && !(bytes.get(at + 1).is_some_and(u8::is_ascii_hexdigit)
                && bytes.get(at + 2).is_some_and(u8::is_ascii_hexdigit))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broken_percent_escape_is_refused_without_quoting_it() {
        for uri in [
            "postgres://b%zz@/x",
            "postgres://al:se%2@h/db",
            "postgres://al@h/db%",
            "postgres://al@/db?host=/run/p%g",
        ] {
            let failure = Target::parse(uri).unwrap_err();
            assert_eq!(failure.code, "usage_error", "{uri}");
            assert!(
                failure.message.contains("two hex digits"),
                "{uri}: {}",
                failure.message
            );
            assert!(!failure.message.contains("se%2"), "{}", failure.message);
        }
        let target = Target::parse("postgres://b%40c:p%25ss@h/d%2Fb").unwrap();
        assert_eq!(target.user(), "b@c");
        assert_eq!(target.config.get_password(), Some(&b"p%ss"[..]));
    }

    #[test]
    fn passwords_never_survive_in_the_shown_form() {
        for (uri, shown) in [
            (
                "postgres://al:s3cret@db.example:5433/tasks",
                "postgres://al@db.example:5433/tasks",
            ),
            (
                "postgresql://al:p%40ss@h1,h2/tasks?sslmode=disable&password=x",
                "postgresql://al@h1,h2/tasks?sslmode=disable",
            ),
            (
                "postgres://al@/tasks?host=/run/pg&PASSWORD=x",
                "postgres://al@/tasks?host=/run/pg",
            ),
            ("postgres:///tasks", "postgres:///tasks"),
            ("postgres://h/db?password=x", "postgres://h/db"),
            // Characters a password should have percent-encoded and did not,
            // where the parser still ends the user info (at the first `@`).
            ("postgres://s:/p?w#x@h/db", "postgres://s@h/db"),
            // An `@` in the query is not the user info's end.
            (
                "postgres://rt@h:5/db?application_name=x@y&password=secretZ&b=1",
                "postgres://rt@h:5/db?application_name=x@y&b=1",
            ),
            // A parameter name written with escapes is still the password.
            ("postgres://h/db?pass%77ord=x", "postgres://h/db"),
        ] {
            assert_eq!(without_password(uri), shown, "{uri}");
        }
        let target = Target::parse("postgres://al:s3cret@db.example:5433/tasks").unwrap();
        assert!(!format!("{target:?}").contains("s3cret"));
        assert!(target.had_password());
        assert!(!Target::parse("postgres://al@h/db").unwrap().had_password());
        assert_eq!(target.server(), "al@db.example:5433/tasks");
        assert_eq!(target.refused_by(), target.server());
        // Of several hosts, a failed connection's error is the last one's.
        let several = Target::parse("postgres://al@a:5433,b:5434/tasks").unwrap();
        assert_eq!(
            several.refused_by(),
            "al@b:5434/tasks (the last of its 2 hosts, each tried in turn)"
        );
        let shared_port = Target::parse("postgres://al@a,b/tasks?port=6000").unwrap();
        assert!(shared_port.refused_by().starts_with("al@b:6000/tasks"));
        // A URI naming its server by address alone, IPv6 in brackets.
        let by_address = Target::parse("postgres://al@/tasks?hostaddr=::1&port=7").unwrap();
        assert_eq!(by_address.server(), "al@[::1]:7/tasks");
    }

    #[test]
    fn a_bad_uri_is_refused_without_echoing_the_password() {
        let failure = Target::parse("postgres://al:s3cret@h/db?sslmode=sometimes").unwrap_err();
        assert_eq!(failure.code, "usage_error");
        assert!(!failure.message.contains("s3cret"), "{}", failure.message);
        assert!(failure.message.contains("sslmode"), "{}", failure.message);
        assert!(failure.field_errors.contains_key("db"));
    }

    #[test]
    fn a_password_with_an_unencoded_at_is_refused_without_showing_any_of_it() {
        for uri in [
            "postgres://at:P@ssw0rd@127.0.0.1:55432/atdb",
            "postgres://s:p@ss:w/rd%?#x@127.0.0.1:5432/db",
            "postgresql://u:a@b@/db?host=/run/pg",
            "postgres://rt:P@ss/w?d#x:y@host/db",
            "postgres://u@ser:pw@host/db",
            "postgres://rt:P@ss@[::1]:19390/db",
            // A user@server login in the query, without user info.
            "postgres://127.0.0.1:19391/db?user=admin@myserver&password=TopSecret1",
        ] {
            let failure = Target::parse(uri).unwrap_err();
            assert_eq!(failure.code, "usage_error", "{uri}");
            for secret in [
                "ssw0rd",
                "ss:w",
                "rd%",
                "a@b",
                "P@",
                "ss/w",
                "pw",
                "TopSecret1",
                "u@ser",
            ] {
                assert!(
                    !failure.message.contains(secret),
                    "{uri}: {}",
                    failure.message
                );
            }
        }
        let failure = Target::parse("postgres://at:P@ssw0rd@127.0.0.1:55432/atdb").unwrap_err();
        assert!(failure.message.contains("%40"), "{}", failure.message);
        // `@` and `:` in the password: its tail read as a port.
        let failure = Target::parse("postgres://al:p@ss:w0rd@h/db").unwrap_err();
        assert!(failure.message.contains("%40"), "{}", failure.message);
        assert!(!failure.message.contains("w0rd"), "{}", failure.message);
        // Hosts that are none, each said by what it is; a NUL by where.
        for (uri, said) in [
            (
                "postgres://al@[fe80::1%25lo]:5/db",
                "an IPv6 address with a zone",
            ),
            ("postgres://al@:5/db", "its host is empty"),
            ("postgres://al@/db?host=", "its host is empty"),
            ("postgres://al@/db?host=rel/dir", "a relative path"),
            ("postgres://al%00x@h/db", "its user holds %00"),
            ("postgres://al@h/d%00b", "its database name holds %00"),
            ("postgres://al:p%00w@h/db", "its password holds %00"),
        ] {
            let failure = Target::parse(uri).unwrap_err();
            assert_eq!(failure.code, code::USAGE_ERROR.code, "{uri}");
            assert!(failure.message.contains(said), "{uri}: {}", failure.message);
            assert!(
                !failure.message.contains("%40"),
                "{uri}: {}",
                failure.message
            );
        }
        // A URI that parses keeps no password in its shown form.
        let target =
            Target::parse("postgres://rt@h:5/db?application_name=x@y&password=plain").unwrap();
        assert!(!target.shown().contains("plain"), "{}", target.shown());
        assert!(target.had_password());
    }

    #[test]
    fn a_query_port_is_the_port_of_hosts_that_name_none() {
        for (uri, ports) in [
            ("postgres://al:pw@h/db?port=5433", vec![5433]),
            (
                "postgres://al@h1,h2/db?sslmode=disable&port=5433",
                vec![5433, 5433],
            ),
            ("postgres://al@h1,[::1]/db?port=5433,5434", vec![5433, 5434]),
        ] {
            let target = Target::parse(uri).unwrap();
            assert_eq!(target.config.get_ports(), ports, "{uri}");
        }
        let target = Target::parse("postgres://al:pw@h/db?port=5433&sslmode=disable").unwrap();
        assert_eq!(
            target.shown(),
            "postgres://al@h/db?port=5433&sslmode=disable"
        );
        assert_eq!(target.config.get_password(), Some(&b"pw"[..]));
        assert!(
            !Target::parse("postgres://al@h/db?port=5433")
                .unwrap()
                .had_password()
        );
    }

    #[test]
    fn ports_that_do_not_match_the_hosts_are_refused_by_name() {
        let failure = Target::parse("postgres://al:s3cret@h:5433/db?port=5433").unwrap_err();
        assert_eq!(failure.code, "usage_error");
        assert!(
            failure.message.contains("2 ports for 1 host"),
            "{}",
            failure.message
        );
        assert!(!failure.message.contains("s3cret"));
        assert!(Target::parse("postgres://al@h1:5433,h2:5434/db").is_ok());
    }

    #[test]
    fn a_uri_without_a_user_names_the_one_it_connects_as() {
        let target = Target::parse("postgres://h:5432/db").unwrap();
        let expected = std::env::var(crate::env_vars::PG_USER.name)
            .ok()
            .filter(|user| !user.is_empty())
            .unwrap_or_else(|| whoami::username().unwrap());
        assert_eq!(target.user(), expected);
        assert_eq!(target.server(), format!("{expected}@h:5432/db"));
    }

    #[test]
    fn a_uri_without_host_defaults_to_the_socket_then_localhost() {
        let target = Target::parse("postgres://al@/db").unwrap();
        assert_eq!(
            target.config.get_hosts(),
            [
                Host::Unix(PathBuf::from(DEFAULT_SOCKET_DIR)),
                Host::Tcp("localhost".into())
            ]
        );
        assert_eq!(target.dbname(), "db");
        let socket = Target::parse("postgresql://al@/db?host=/tmp/pg&port=5999").unwrap();
        assert_eq!(socket.config.get_hosts(), [Host::Unix("/tmp/pg".into())]);
        assert_eq!(socket.config.get_ports(), [5999]);
    }

    #[test]
    fn the_password_file_matches_like_libpq() {
        let text = "# comment\n\
                    other:5432:*:al:nope\n\
                    localhost:5432:tasks:al:pa\\:ss\n\
                    *:*:*:*:fallback\n";
        assert_eq!(
            passfile_lookup(text, "localhost", "5432", "tasks", "al").as_deref(),
            Some("pa:ss")
        );
        assert_eq!(
            passfile_lookup(text, "db", "5432", "x", "bo").as_deref(),
            Some("fallback")
        );
        assert_eq!(passfile_lookup("h:1:d:u", "h", "1", "d", "u"), None);
        // An unescaped `:` ends the password, as it does for libpq (psql,
        // pg_dump): `pw`, not `pw:with@odd`.
        assert_eq!(
            passfile_lookup("h:1:d:u:pw:with@odd", "h", "1", "d", "u").as_deref(),
            Some("pw")
        );
        // A socket directory is matched by its path, but for libpq's
        // default one, which is `localhost`.
        let unix = |dir: &str| Host::Unix(dir.into());
        assert_eq!(passfile_host(Some(&unix("/srv/pg"))), "/srv/pg");
        assert_eq!(
            passfile_host(Some(&unix("/var/run/postgresql"))),
            "localhost"
        );
        assert_eq!(passfile_host(None), "localhost");
        assert_eq!(passfile_host(Some(&Host::Tcp("db".into()))), "db");
        assert_eq!(
            passfile_lookup(
                "/srv/pg:5432:*:al:pw",
                &passfile_host(Some(&unix("/srv/pg"))),
                "5432",
                "d",
                "al"
            )
            .as_deref(),
            Some("pw")
        );
    }

    #[test]
    fn schemes_are_recognised_whatever_their_case() {
        assert!(is_uri("postgres://h/db") && is_uri("PostgreSQL://h/db"));
        assert!(!is_uri("postgres:db") && !is_uri("./postgres://x") && !is_uri("pg://h"));
    }
}
