//! The Agent Runtime API adapter: sends one encoded [`WireRequest`] with the
//! profile's bearer token and turns the answer into a [`Success`] or a
//! classified [`Failure`]. It owns the transport rules of product.md §6: on
//! a 401 it refreshes the token through the profile's credential process
//! once and replays once; reads and idempotent setters retry transient
//! failures with backoff that honours `Retry-After`; non-idempotent
//! mutations are never resent once they may have reached the server.

use std::sync::Mutex;
use std::time::{Duration, Instant};

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
    fn token(&self, timeout: Duration) -> Result<(Secret, u64), Failure> {
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
                    "Profile `{}` has no usable token and no credential_process; run `agentteam auth login`.",
                    self.profile_name
                ),
            ));
        }
        self.refresh_locked(&mut state, timeout)
    }

    fn can_refresh(&self) -> bool {
        self.lock().profile.credential_process.is_some()
    }

    /// After a 401 with the token of generation `seen`: refresh, unless another
    /// request already did.
    fn refresh_after(&self, seen: u64, timeout: Duration) -> Result<(Secret, u64), Failure> {
        let mut state = self.lock();
        if state.generation > seen
            && let Some(token) = &state.profile.token
        {
            return Ok((token.clone(), state.generation));
        }
        self.refresh_locked(&mut state, timeout)
    }

    /// Runs the credential process and stores the new token in this profile only.
    fn refresh_locked(
        &self,
        state: &mut SessionState,
        timeout: Duration,
    ) -> Result<(Secret, u64), Failure> {
        let argv = state.profile.credential_process.clone().unwrap_or_default();
        let (token, expires_at) = run_credential_process(&argv, timeout)?;
        state.profile.token = Some(token.clone());
        state.profile.token_expires_at = expires_at.clone();
        state.generation += 1;
        let name = self.profile_name.clone();
        self.store.update(|file| {
            if let Some(stored) = file.profiles.get_mut(&name) {
                stored.token = Some(token.clone());
                stored.token_expires_at = expires_at;
            }
            Ok(())
        })?;
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

impl Client {
    pub fn new(api_url: &str, settings: ClientSettings) -> Result<Client, Failure> {
        let base = api_url.trim_end_matches('/').to_string();
        let mut builder = reqwest::Client::builder()
            .user_agent(concat!("agentteam/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(settings.timeout.min(Duration::from_secs(10)))
            .timeout(settings.timeout)
            .tcp_nodelay(true);
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
        let (mut token, mut generation) = session.token(self.settings.timeout)?;
        loop {
            let started = Instant::now();
            let outcome = self.send(request, &token, printer).await;
            let failure = match outcome {
                Ok(answer) if (200..300).contains(&answer.status) => {
                    printer.diagnostic(&format!(
                        "< {} in {} ms",
                        answer.status,
                        started.elapsed().as_millis()
                    ));
                    return wire::decode_success(&answer.body);
                }
                Ok(answer) => {
                    printer.diagnostic(&format!(
                        "< {} in {} ms",
                        answer.status,
                        started.elapsed().as_millis()
                    ));
                    if answer.status == 401 && !refreshed && session.can_refresh() {
                        printer.diagnostic("401: refreshing the token through the credential process, then replaying once");
                        refreshed = true;
                        (token, generation) =
                            session.refresh_after(generation, self.settings.timeout)?;
                        continue;
                    }
                    let retry_after = retry_after(&answer.headers);
                    let failure = wire::decode_error(
                        answer.status,
                        &answer.body,
                        retry_after.map(|d| d.as_secs()),
                    );
                    if let Some(wait) = retry_after {
                        if failure.class == ExitClass::Transient && wait > MAX_RETRY_AFTER {
                            return Err(failure);
                        }
                        backoff = backoff.max(wait);
                    }
                    failure
                }
                Err(failure) => failure,
            };
            if failure.class != ExitClass::Transient || retries_left == 0 {
                return Err(failure);
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
    ) -> Result<Answer, Failure> {
        let url = format!("{}{}", self.base, request.path);
        let mut builder = match request.method {
            Method::Get => self.http.get(&url).query(&request.query),
            Method::Post => self
                .http
                .post(&url)
                .header(CONTENT_TYPE, "application/json")
                .body(request.body.clone().unwrap_or_default()),
        };
        builder = builder.header(AUTHORIZATION, format!("Bearer {}", token.expose()));
        printer.diagnostic(&format!(
            "> {} {url} (authorization: Bearer <redacted>)",
            request.method.as_str()
        ));
        let mut response = builder.send().await.map_err(transport_failure)?;
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let too_large = || {
            Failure::new(
                code::INVALID_RESPONSE,
                format!(
                    "The server's answer exceeds {} MiB.",
                    MAX_RESPONSE_BYTES / (1024 * 1024)
                ),
            )
        };
        if response
            .content_length()
            .is_some_and(|n| n > MAX_RESPONSE_BYTES as u64)
        {
            return Err(too_large());
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(transport_failure)? {
            if body.len() + chunk.len() > MAX_RESPONSE_BYTES {
                return Err(too_large());
            }
            body.extend_from_slice(&chunk);
        }
        Ok(Answer {
            status,
            headers,
            body,
        })
    }
}

/// Seconds of a `Retry-After: <seconds>` header (HTTP dates are treated as absent).
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    value.parse::<u64>().ok().map(Duration::from_secs)
}

/// Classifies a transport error without echoing URLs or internals.
fn transport_failure(error: reqwest::Error) -> Failure {
    if error.is_timeout() {
        return Failure::new(
            code::TIMEOUT,
            "The Agent Runtime API did not answer within the timeout.",
        );
    }
    let detail = root_cause(&error);
    let what = if error.is_connect() {
        if detail.contains("refused") {
            "the connection was refused"
        } else if detail.contains("dns") || detail.contains("resolve") || detail.contains("lookup")
        {
            "its host name could not be resolved"
        } else if detail.contains("tls")
            || detail.contains("certificate")
            || detail.contains("handshake")
        {
            "the TLS handshake failed"
        } else {
            "the connection failed"
        }
    } else if error.is_body() || error.is_decode() {
        "the answer was cut off"
    } else {
        "the request failed in transit"
    };
    Failure::new(
        code::NETWORK_ERROR,
        format!("Could not reach the Agent Runtime API: {what}."),
    )
}

fn root_cause(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string().to_lowercase();
    let mut source = error.source();
    while let Some(inner) = source {
        text.push(' ');
        text.push_str(&inner.to_string().to_lowercase());
        source = inner.source();
    }
    text
}
