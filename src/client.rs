//! The Agent Runtime API adapter: sends one encoded [`WireRequest`] with the
//! profile's bearer token and turns the answer into a [`Success`] or a
//! classified [`Failure`]. It owns the transport rules (README "Credentials", "Exit status"): on
//! a 401 it refreshes the token through the profile's credential process
//! once and replays once; reads and idempotent setters retry transient
//! failures with backoff that honours `Retry-After`; non-idempotent
//! mutations are never resent once they may have reached the server.

use std::error::Error;
use std::io;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderMap, RETRY_AFTER};

use crate::credentials::{CredentialStore, Profile, Secret, run_credential_process};
use crate::error::{ExitClass, Failure, code};
use crate::output::Printer;
use crate::registry::Method;
use crate::wire::{self, Success, WireRequest};

/// The largest answer body read; anything bigger is refused as invalid.
pub const MAX_RESPONSE_BYTES: usize = 8 * 1024 * 1024;
/// Longest `Retry-After` the CLI waits out itself; longer ones are reported.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

pub struct ClientSettings {
    pub timeout: Duration,
    /// Extra attempts after a transient failure, for retry-safe requests.
    pub retries: u32,
}

/// A profile's credentials for one invocation, shared by every request it
/// makes (a `--batch` runs many at once): the token is fetched once, and a
/// 401 refreshes it at most once per token generation.
pub struct Session<'a> {
    store: &'a CredentialStore,
    profile_name: String,
    state: Mutex<SessionState>,
}

struct SessionState {
    profile: Profile,
    /// Bumped by each refresh, so concurrent 401s refresh only once.
    generation: u64,
}

impl<'a> Session<'a> {
    pub fn new(store: &'a CredentialStore, profile_name: String, profile: Profile) -> Session<'a> {
        Session {
            store,
            profile_name,
            state: Mutex::new(SessionState {
                profile,
                generation: 0,
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SessionState> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The current token, fetched through the credential process when there is none.
    fn token(&self, timeout: Duration, printer: &Printer) -> Result<(Secret, u64), Failure> {
        let mut state = self.lock();
        if let Some(token) = &state.profile.token
            && !expired(state.profile.token_expires_at.as_deref())
        {
            return Ok((token.clone(), state.generation));
        }
        if state.profile.credential_process.is_none() {
            return Err(Failure::new(
                code::CREDENTIALS_MISSING,
                format!(
                    "Profile `{}` has no usable token and no credential_process; run `agentteam {} auth login`.",
                    self.profile_name,
                    crate::credentials::profile_flag(&self.profile_name)
                ),
            ));
        }
        self.refresh_locked(&mut state, timeout, printer)
    }

    /// A 401 that stands: says which profile's token was refused and the
    /// login that replaces it. That login keeps the profile's API URL,
    /// workspace and agent, so the message shows none of them: the workspace
    /// and agent are hidden context and the URL a transport detail, which no
    /// message shows (docs/contract.md §8.2). It keeps the profile's cap.
    fn explain_unauthorized(&self, failure: Failure, refreshed: bool) -> Failure {
        let profile = crate::credentials::profile_flag(&self.profile_name);
        let more = if refreshed {
            // A token the credential process had just issued, refused: the
            // process issues for another server, workspace or agent more
            // likely than its token was stale, and a login with a token
            // would drop the process from the profile.
            format!(
                "The token of profile `{}` was refused even after its credential process refreshed it: \
                 check that the process issues tokens for the profile's server, workspace and agent \
                 (`agentteam {profile} auth status` shows them).",
                self.profile_name,
            )
        } else {
            let cap = match self.lock().profile.max_permission {
                Some(class) => format!(" --max-permission {}", class.as_str()),
                None => String::new(),
            };
            format!(
                "The token of profile `{}` was refused (invalid, expired or revoked). \
                 Log in again: `printf %s \"$TOKEN\" | agentteam {profile} auth login --token-stdin{cap}` \
                 (the profile keeps its api_url, workspace and agent).",
                self.profile_name,
            )
        };
        let message = crate::error::followed_by(&failure.message, &more);
        Failure { message, ..failure }
    }

    fn can_refresh(&self) -> bool {
        self.lock().profile.credential_process.is_some()
    }

    /// After a 401 with the token of generation `seen`: refresh, unless another
    /// request already did.
    fn refresh_after(
        &self,
        seen: u64,
        timeout: Duration,
        printer: &Printer,
    ) -> Result<(Secret, u64), Failure> {
        let mut state = self.lock();
        if state.generation > seen
            && let Some(token) = &state.profile.token
        {
            return Ok((token.clone(), state.generation));
        }
        self.refresh_locked(&mut state, timeout, printer)
    }

    /// Runs the credential process and stores the new token in this
    /// profile only. A store that cannot be written (a read-only config
    /// directory) does not waste the new token: it is used, and a warning
    /// says it was not saved.
    fn refresh_locked(
        &self,
        state: &mut SessionState,
        timeout: Duration,
        printer: &Printer,
    ) -> Result<(Secret, u64), Failure> {
        let argv = state.profile.credential_process.clone().unwrap_or_default();
        let (token, expires_at) = run_credential_process(&argv, timeout)?;
        state.profile.token = Some(token.clone());
        state.profile.token_expires_at = expires_at.clone();
        state.generation += 1;
        let name = self.profile_name.clone();
        let ran = &state.profile;
        let saved = self.store.update(|file| {
            // Stored only while the profile is still the one whose process
            // ran: a login meanwhile (another agent, workspace, server or
            // process) keeps its own token, not this one.
            if let Some(stored) = file.profiles.get_mut(&name)
                && (&stored.api_url, &stored.workspace_id, &stored.agent_id)
                    == (&ran.api_url, &ran.workspace_id, &ran.agent_id)
                && stored.credential_process.as_ref() == Some(&argv)
            {
                stored.token = Some(token.clone());
                stored.token_expires_at = expires_at;
            }
            Ok(())
        });
        if let Err(unsaved) = saved {
            printer.stderr(&format!(
                "agentteam: warning: the new token of profile `{name}` was not saved ({}); the next command runs its credential process again.\n",
                unsaved.message.trim_end_matches('.')
            ));
        }
        Ok((token, state.generation))
    }
}

fn expired(expires_at: Option<&str>) -> bool {
    let Some(text) = expires_at else { return false };
    match time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339) {
        Ok(at) => at <= time::OffsetDateTime::now_utc() + time::Duration::seconds(5),
        Err(_) => false,
    }
}

pub struct Client {
    http: reqwest::Client,
    base: String,
    settings: ClientSettings,
}

/// One HTTP answer, read in full (bounded).
struct Answer {
    status: u16,
    headers: HeaderMap,
    body: Vec<u8>,
}

/// The `user-agent` every request carries.
pub const USER_AGENT: &str = concat!("agentteam/", env!("CARGO_PKG_VERSION"));

/// The `accept` every request carries: reqwest's own, as sent.
pub const ACCEPT: &str = "*/*";

impl Client {
    pub fn new(api_url: &str, settings: ClientSettings) -> Result<Client, Failure> {
        let base = api_url.trim_end_matches('/').to_string();
        let mut builder = reqwest::Client::builder()
            .user_agent(USER_AGENT)
            // Shorter than the whole attempt's bound, so a connection that is
            // never made fails as one (nothing was sent) rather than as the
            // attempt's timeout (after which the server may have the request).
            .connect_timeout(settings.timeout.mul_f64(0.8).min(Duration::from_secs(10)))
            .timeout(settings.timeout)
            .tcp_nodelay(true)
            // A redirect could carry the request, and on the same origin its
            // token, somewhere the profile never named: a 3xx is an error.
            .redirect(reqwest::redirect::Policy::none())
            .dns_resolver(Arc::new(SystemResolver));
        if reqwest::Url::parse(&base).is_ok_and(|url| crate::credentials::is_loopback(&url)) {
            // A runtime on this machine is reached directly, as Go's client
            // (gh, kubectl) reaches it: a proxy named in the environment
            // (HTTP_PROXY, ALL_PROXY) would otherwise get every request,
            // its token in the clear, for a server it cannot even reach.
            builder = builder.no_proxy();
        }
        if base.starts_with("http://") {
            // Plain HTTP needs no trust store; skip loading it.
            builder = builder.tls_built_in_root_certs(false);
        }
        let http = builder.build().map_err(|e| {
            Failure::new(
                code::INTERNAL_ERROR,
                format!("Cannot build the HTTP client: {e}."),
            )
        })?;
        Ok(Client {
            http,
            base,
            settings,
        })
    }

    /// Sends `request`, refreshing credentials once on 401 and retrying
    /// transient failures only when `may_retry`.
    pub async fn call(
        &self,
        request: &WireRequest,
        session: &Session<'_>,
        may_retry: bool,
        printer: &Printer,
    ) -> Result<Success, Failure> {
        let mut refreshed = false;
        let mut retries_left = if may_retry { self.settings.retries } else { 0 };
        let mut backoff = Duration::from_millis(200);
        let (mut token, mut generation) = session.token(self.settings.timeout, printer)?;
        loop {
            let started = Instant::now();
            let outcome = self.send(request, &token, printer).await;
            // Whether the server may have received (and acted on) the
            // request: any answer, or a connection that failed after the
            // request went out.
            let mut may_have_arrived = true;
            let failure = match outcome {
                Ok(answer) if (200..300).contains(&answer.status) => {
                    printer.diagnostic(&format!(
                        "< {} in {} ms",
                        answer.status,
                        started.elapsed().as_millis()
                    ));
                    // A success the CLI cannot read still took effect: a
                    // mutation not safe to send twice says so.
                    return wire::decode_success(&answer.body)
                        .map_err(|failure| unreadable_success(failure, may_retry));
                }
                Ok(answer) => {
                    printer.diagnostic(&format!(
                        "< {} in {} ms",
                        answer.status,
                        started.elapsed().as_millis()
                    ));
                    if (300..400).contains(&answer.status) {
                        return Err(redirected(
                            answer.status,
                            &answer.headers,
                            &session.profile_name,
                            printer,
                        ));
                    }
                    if answer.status == 401 && !refreshed && session.can_refresh() {
                        printer.diagnostic("401: refreshing the token through the credential process, then replaying once");
                        refreshed = true;
                        (token, generation) =
                            session.refresh_after(generation, self.settings.timeout, printer)?;
                        continue;
                    }
                    let retry_after = retry_after(&answer.headers);
                    let failure = wire::decode_error(
                        answer.status,
                        &answer.body,
                        retry_after.map(whole_seconds),
                    );
                    if let Some(wait) = retry_after {
                        if failure.class == ExitClass::Transient && wait > MAX_RETRY_AFTER {
                            // Longer than a command should wait: no retry,
                            // but the failure is explained as any other.
                            retries_left = 0;
                        }
                        backoff = backoff.max(wait);
                    }
                    failure
                }
                // A success whose body could not be read took effect: a
                // mutation not safe to send twice says so, and an answer
                // too large to read is final (it would be as large again);
                // a read cut off is retried as any transient failure.
                Err(unsent)
                    if unsent.succeeded
                        && (!may_retry || unsent.failure.is(code::INVALID_RESPONSE)) =>
                {
                    return Err(unreadable_success(unsent.failure, may_retry));
                }
                Err(unsent) => {
                    may_have_arrived = unsent.may_have_arrived;
                    unsent.failure
                }
            };
            if failure.class != ExitClass::Transient || retries_left == 0 {
                return Err(if failure.is(code::UNAUTHORIZED) {
                    session.explain_unauthorized(failure, refreshed)
                } else if failure.is(code::NETWORK_ERROR)
                    || failure.is(code::TIMEOUT) && !may_have_arrived
                {
                    self.explain_unreachable(failure, &session.profile_name)
                } else if !may_retry
                    && may_have_arrived
                    && failure.class == ExitClass::Transient
                    // Refused for the rate, so not acted on.
                    && !failure.is(code::RATE_LIMITED)
                {
                    not_safe_to_repeat(failure)
                } else {
                    failure
                });
            }
            retries_left -= 1;
            printer.diagnostic(&format!(
                "{}: retrying in {} ms",
                failure.code,
                backoff.as_millis()
            ));
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(MAX_RETRY_AFTER);
        }
    }

    /// A server that cannot be reached: names the two usual causes, a
    /// stopped server and a wrong URL, and where to see the URL. The URL
    /// itself is a transport detail, which no message shows (docs/contract.md
    /// §8.2); `-v` prints each request's URL on stderr.
    fn explain_unreachable(&self, failure: Failure, profile: &str) -> Failure {
        let profile = crate::credentials::profile_flag(profile);
        let message = format!(
            "{} Is the server running (`agentteam-runtime serve`), and is the profile's api_url right (`agentteam {profile} auth status`)?",
            failure.message.trim_end(),
        );
        Failure { message, ..failure }
    }

    /// The full URL of `request`, query string included.
    pub fn url(&self, request: &WireRequest) -> String {
        let url = format!("{}{}", self.base, request.path);
        match reqwest::Url::parse_with_params(&url, &request.query) {
            Ok(mut parsed) => {
                if request.query.is_empty() {
                    parsed.set_query(None);
                }
                parsed.to_string()
            }
            Err(_) => url,
        }
    }

    async fn send(
        &self,
        request: &WireRequest,
        token: &Secret,
        printer: &Printer,
    ) -> Result<Answer, Unanswered> {
        printer.redact(token);
        let url = format!("{}{}", self.base, request.path);
        let mut builder = match request.method {
            Method::Get => self.http.get(&url).query(&request.query),
            Method::Post => self
                .http
                .post(&url)
                .header(CONTENT_TYPE, "application/json")
                .body(request.body.clone().unwrap_or_default()),
        };
        // A token that cannot be a header value would otherwise fail in
        // transit, as a retryable network error: it is the profile's fault.
        let mut bearer =
            reqwest::header::HeaderValue::from_str(&format!("Bearer {}", token.expose())).map_err(
                |_| {
                    Unanswered::unsent(Failure::new(
                        code::CREDENTIAL_STORE_INVALID,
                        "The profile's token is malformed (not printable ASCII); log in again.",
                    ))
                },
            )?;
        bearer.set_sensitive(true);
        builder = builder.header(AUTHORIZATION, bearer);
        let built = builder.build().map_err(transport_failure)?;
        // The URL as sent, a GET's query string included.
        printer.diagnostic(&format!(
            "> {} {} (authorization: Bearer <redacted>)",
            request.method.as_str(),
            built.url()
        ));
        let mut response = self.http.execute(built).await.map_err(transport_failure)?;
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let success = (200..300).contains(&status);
        let too_large = || {
            Unanswered::answered(
                success,
                Failure::new(
                    code::INVALID_RESPONSE,
                    format!(
                        "The server's answer exceeds {} MiB.",
                        MAX_RESPONSE_BYTES / (1024 * 1024)
                    ),
                ),
            )
        };
        // An error status whose body cannot be read whole (too large, or
        // cut off) is classified by its status alone, as a body that is not
        // JSON is: the status says what happened.
        let unread = || Answer {
            status,
            headers: headers.clone(),
            body: Vec::new(),
        };
        if response
            .content_length()
            .is_some_and(|n| n > MAX_RESPONSE_BYTES as u64)
        {
            return if success {
                Err(too_large())
            } else {
                Ok(unread())
            };
        }
        let mut body = Vec::new();
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) if body.len() + chunk.len() > MAX_RESPONSE_BYTES => {
                    return if success {
                        Err(too_large())
                    } else {
                        Ok(unread())
                    };
                }
                Ok(Some(chunk)) => body.extend_from_slice(&chunk),
                Ok(None) => break,
                Err(_) if !success => return Ok(unread()),
                Err(e) => {
                    let cut = transport_failure(e);
                    return Err(Unanswered::answered(true, cut.failure));
                }
            }
        }
        Ok(Answer {
            status,
            headers,
            body,
        })
    }
}

/// A request that got no whole answer, and whether the server may have
/// received it all the same.
struct Unanswered {
    failure: Failure,
    may_have_arrived: bool,
    /// The server answered a success status, but its body could not be
    /// read: the request took effect.
    succeeded: bool,
}

impl Unanswered {
    fn unsent(failure: Failure) -> Unanswered {
        Unanswered {
            failure,
            may_have_arrived: false,
            succeeded: false,
        }
    }

    /// The answer's status came, its body not whole.
    fn answered(succeeded: bool, failure: Failure) -> Unanswered {
        Unanswered {
            failure,
            may_have_arrived: true,
            succeeded,
        }
    }
}

/// A transient failure of a request that is not safe to send twice (a
/// create without an idempotency key, an update, a delete) after the server
/// may have received it: retrying is not the fix it would be for a read,
/// since the first may have taken effect.
fn not_safe_to_repeat(failure: Failure) -> Failure {
    let more = "The server may have received the request, and this action is not safe to send twice: read the current state (list or get it) before you send it again.";
    let message = crate::error::followed_by(&failure.message, more);
    Failure { message, ..failure }.detail("may_have_taken_effect", serde_json::Value::Bool(true))
}

/// The failure of a success answer that cannot be read (not JSON, too
/// large, cut off, not an answer of the action): as it is for a request
/// safe to send again, and for any other said to have taken effect.
pub(crate) fn unreadable_success(failure: Failure, may_retry: bool) -> Failure {
    if may_retry {
        failure
    } else {
        acted_on(failure)
    }
}

/// A success answer to a request that is not safe to send twice, whose
/// body could not be read: the action took effect, so sending it again
/// would act twice.
fn acted_on(failure: Failure) -> Failure {
    let more = "The server answered success, so the action took effect, and it is not safe to send twice: read the current state (list or get it) before you send it again.";
    let message = crate::error::followed_by(&failure.message, more);
    Failure { message, ..failure }.detail("took_effect", serde_json::Value::Bool(true))
}

/// A 3xx answer: refused. Where it pointed is a transport detail (an
/// internal address, perhaps), which no message shows (docs/contract.md
/// §8.2): `-v` prints it on stderr, bounded and escaped, since the header
/// is the server's text.
fn redirected(status: u16, headers: &HeaderMap, profile: &str, printer: &Printer) -> Failure {
    let location = headers
        .get(reqwest::header::LOCATION)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    let message = match location {
        Some(to) => {
            let escaped = crate::text::escape(&to);
            let shown = crate::text::clip(&escaped, 4 * crate::text::ECHO_LIMIT);
            printer.diagnostic(&format!("< location: {shown}"));
            let profile = crate::credentials::profile_flag(profile);
            format!(
                "The API answered HTTP {status}, a redirect; agentteam does not follow redirects. `-v` shows where it points; if that is the API, make it the profile's api_url (`agentteam {profile} auth login --api-url …`)."
            )
        }
        None => format!(
            "The API answered HTTP {status}, a redirect without a Location; agentteam does not follow redirects. Check the profile's api_url."
        ),
    };
    Failure::new(code::REQUEST_REJECTED, message)
}

/// A wait in whole seconds, rounded up: a date 0.4 s away is said as 1 s,
/// never as 0.
fn whole_seconds(wait: Duration) -> u64 {
    wait.as_secs() + u64::from(wait.subsec_nanos() > 0)
}

/// How long a `Retry-After` header asks to wait: its seconds (more than a
/// u64 holds: the most it holds), or the time until its HTTP date (none
/// once that is past, RFC 9110 §10.2.3).
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    // More seconds than a u64 holds is the longest wait, not none.
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        return Some(Duration::from_secs(u64::MAX));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(
        at.duration_since(std::time::SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

/// The system resolver, as reqwest's default uses it, with a failure that
/// says what it is: an I/O error of kind `NotFound` (the standard library's
/// own lookup error has no kind of its own), so that [`transport_failure`]
/// can tell a host that does not resolve from a connection that fails.
struct SystemResolver;

impl Resolve for SystemResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_string();
        Box::pin(async move {
            // Port 0: the connector puts the URL's port on every address.
            match tokio::net::lookup_host((host, 0)).await {
                Ok(addrs) => Ok(Box::new(addrs) as Addrs),
                Err(e) => Err(io::Error::new(io::ErrorKind::NotFound, e).into()),
            }
        })
    }
}

/// Classifies a transport error without echoing URLs or internals: by
/// reqwest's own kinds, then by the kind of the first I/O error among its
/// causes.
fn transport_failure(error: reqwest::Error) -> Unanswered {
    // A connection never made carried nothing; anything later may have
    // carried the whole request.
    let may_have_arrived = !error.is_connect() && !error.is_builder();
    if error.is_timeout() {
        let message = if may_have_arrived {
            "The Agent Runtime API did not answer within the timeout."
        } else {
            "Could not reach the Agent Runtime API: no connection was made within the timeout."
        };
        return Unanswered {
            failure: Failure::new(code::TIMEOUT, message),
            may_have_arrived,
            succeeded: false,
        };
    }
    let what = if error.is_connect() {
        match io_error_kind(&error) {
            Some(io::ErrorKind::ConnectionRefused) => "the connection was refused",
            Some(io::ErrorKind::NotFound) => "its host name could not be resolved",
            // rustls reports a failed handshake (a certificate refused, or no
            // TLS at all on the other end) as invalid data.
            Some(io::ErrorKind::InvalidData) => "the TLS handshake failed",
            _ => "the connection failed",
        }
    } else if error.is_body() || error.is_decode() {
        "the answer was cut off"
    } else {
        "the request failed in transit"
    };
    let message = if may_have_arrived {
        format!(
            "The connection to the Agent Runtime API failed after the request was sent: {what}."
        )
    } else {
        format!("Could not reach the Agent Runtime API: {what}.")
    };
    Unanswered {
        failure: Failure::new(code::NETWORK_ERROR, message),
        may_have_arrived,
        succeeded: false,
    }
}

/// The kind of the first I/O error among `error`'s causes that says more
/// than `Other`, a wrapper's kind (the TLS connector wraps rustls's
/// `InvalidData` error in one). An I/O error hands on the error it wraps
/// through `get_ref`; its `source` skips that one.
fn io_error_kind(error: &(dyn Error + 'static)) -> Option<io::ErrorKind> {
    let mut next = Some(error);
    while let Some(error) = next {
        next = match error.downcast_ref::<io::Error>() {
            Some(io) if io.kind() != io::ErrorKind::Other => return Some(io.kind()),
            Some(io) => io.get_ref().map(|inner| inner as &(dyn Error + 'static)),
            None => error.source(),
        };
    }
    None
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::net::TcpListener;

    use super::*;

    /// `Retry-After` in seconds or as an HTTP date in any of its three
    /// forms; a date past is no wait; anything else is no header.
    #[test]
    fn retry_after_reads_seconds_and_http_dates() {
        let header = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(RETRY_AFTER, value.parse().unwrap());
            retry_after(&headers)
        };
        assert_eq!(header("3"), Some(Duration::from_secs(3)));
        let soon = std::time::SystemTime::now() + Duration::from_secs(30);
        let wait = header(&httpdate::fmt_http_date(soon)).unwrap();
        assert!(
            wait > Duration::from_secs(28) && wait <= Duration::from_secs(30),
            "{wait:?}"
        );
        assert_eq!(
            header("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(Duration::ZERO)
        );
        assert_eq!(
            header("Sunday, 06-Nov-94 08:49:37 GMT"),
            Some(Duration::ZERO)
        );
        assert_eq!(header("Sun Nov  6 08:49:37 1994"), Some(Duration::ZERO));
        assert_eq!(header("soon"), None);
        assert_eq!(header("-1"), None);
        assert_eq!(
            header("99999999999999999999999"),
            Some(Duration::from_secs(u64::MAX))
        );
        assert_eq!(whole_seconds(Duration::from_secs(u64::MAX)), u64::MAX);
        assert_eq!(whole_seconds(Duration::from_millis(400)), 1);
        assert_eq!(whole_seconds(Duration::from_secs(3)), 3);
        assert_eq!(whole_seconds(Duration::ZERO), 0);
    }

    /// A local server that answers the first connection with `reply` and closes it.
    fn answering(reply: &'static [u8]) -> u16 {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut request = [0u8; 4096];
            let _ = stream.read(&mut request);
            let _ = stream.write_all(reply);
        });
        port
    }

    /// The failure a GET of `url` ends in, its body read in full.
    async fn failure_of(url: &str) -> Unanswered {
        let client = Client::new(
            url,
            ClientSettings {
                timeout: Duration::from_secs(5),
                retries: 0,
            },
        )
        .unwrap();
        let error = match client.http.get(url).send().await {
            Ok(response) => response.bytes().await.expect_err("the body fails"),
            Err(error) => error,
        };
        transport_failure(error)
    }

    /// A network error saying `what`, of a request that never left (or,
    /// with `sent`, one that may have reached the server).
    fn assert_network_error(unanswered: Unanswered, what: &str, sent: bool) {
        let failure = unanswered.failure;
        let message = if sent {
            format!(
                "The connection to the Agent Runtime API failed after the request was sent: {what}."
            )
        } else {
            format!("Could not reach the Agent Runtime API: {what}.")
        };
        assert_eq!(
            (failure.code.as_str(), failure.message.as_str()),
            (code::NETWORK_ERROR.code, message.as_str())
        );
        assert_eq!(unanswered.may_have_arrived, sent, "{what}");
    }

    #[tokio::test]
    async fn a_refused_connection_says_so() {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let failure = failure_of(&format!("http://127.0.0.1:{port}/")).await;
        assert_network_error(failure, "the connection was refused", false);
    }

    #[tokio::test]
    async fn a_host_that_does_not_resolve_says_so() {
        // `.invalid` never resolves (RFC 6761).
        let failure = failure_of("http://nonexistent.invalid:1/").await;
        assert_network_error(failure, "its host name could not be resolved", false);
    }

    #[tokio::test]
    async fn tls_to_a_plain_http_port_is_a_failed_handshake() {
        let port = answering(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n");
        let failure = failure_of(&format!("https://127.0.0.1:{port}/")).await;
        assert_network_error(failure, "the TLS handshake failed", false);
    }

    #[tokio::test]
    async fn a_body_cut_short_says_so() {
        let port = answering(b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{\"items\"");
        let failure = failure_of(&format!("http://127.0.0.1:{port}/")).await;
        assert_network_error(failure, "the answer was cut off", true);
    }
}
