//! The HTTP surface: axum on tokio. The router is built by iterating the
//! registry, so every registered action is served at its §13.3 route and
//! method and nothing else is; one generic handler runs every operation:
//! authenticate → check the path is the token's own workspace and agent →
//! decode the wire input → validate it exactly as the CLI does → run the
//! store operation (awaited: a mutation waits for its commit without holding
//! a thread) → answer with the wire body. A `task_get` with a small body
//! (and no rate limit to take from first) reads its input first, if it
//! comes with its headers (`PRE_AUTH_WAIT`), and then its token and task
//! in one store read, answering only once the token is admitted: the same
//! answers, one round trip to the store instead of two.
//!
//! Every refusal, including unknown routes, wrong methods, oversized bodies
//! and panics, is the JSON error body with the status its code registers.
//! The status of a success is the registry's (`Action::success`).
//!
//! What every request gets alike is a tower-http layer around the router,
//! not code in the handlers: `TraceLayer` writes its one log line and
//! `CatchPanicLayer` turns a panic into the 500 `server_error` document.
//!
//! Slow clients cannot hold the server: connections are served by hyper's
//! HTTP/1 builder with a header read timeout (a client that never finishes
//! its headers is cut off), and a body that does not arrive within the body
//! timeout is answered 408 (axum's own `serve` has no header timeout).
//! Every result is held to its action's result budget (§8.3) by the store.
//! A client that pipelines requests and never reads the answers is cut off
//! too: a write that makes no progress for the write timeout fails
//! (`shed::WriteDeadline`). Beyond `--max-connections`, a new connection is
//! answered 503 with one non-blocking write and closed once its request is
//! drained (`shed::Refusals`); an optional
//! per-token rate limit answers 429 `rate_limited` with `Retry-After`; and
//! the log lines of refused requests are sampled (`log::Sampler`).
//! Beside the registry's routes, unauthenticated `GET /healthz` and
//! `GET /readyz` tell a load balancer the process serves and the store
//! answers; a 503 (store unreachable or saturated) carries `Retry-After`.
//! `GET /api/v1/openapi.json`, also unauthenticated, serves the API's
//! OpenAPI document (`crate::openapi`).

use std::any::Any;
use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, BodyDataStream, Bytes, HttpBody};
use axum::extract::{DefaultBodyLimit, FromRequestParts, MatchedPath, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use axum::routing::{MethodFilter, MethodRouter};
use futures_util::StreamExt;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::signal::unix::{Signal, SignalKind, signal};
use tokio::time::Instant;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::trace::TraceLayer;
use tracing::Span;

use crate::error::{Failure, code};
use crate::registry::{ACTIONS, Action, Method, Permission};
use crate::runtime::auth;
use crate::runtime::ingress::{Abandoned, Ingress};
use crate::runtime::log::log_refusal;
use crate::runtime::shed::{self, Limiter, RateLimit, WriteDeadline};
use crate::runtime::store::{self, Principal, Store, TokenRecord};
use crate::wire::{self, MAX_BODY_BYTES, WorkflowContext};

/// How long the server waits for slow or stalled clients.
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    /// From the first byte of a request until its headers are complete.
    pub header_read: Duration,
    /// From the end of the headers until the whole body has arrived.
    pub body_read: Duration,
    /// How long a write of an answer may wait for the client to take any
    /// of it (a client that stops reading, e.g. while pipelining requests).
    pub write: Duration,
    /// How long in-flight requests may take to finish after SIGTERM.
    pub shutdown_grace: Duration,
    /// How long one store call of a request (or `/readyz`) may take before
    /// the request is answered 503: a database that stopped answering (a
    /// frozen server, a lock held for minutes) gets no hang
    /// (`serve --store-timeout`).
    pub store: Duration,
}

/// [`Timeouts::store`] by default (`serve --store-timeout`): far above any
/// store call of a healthy store, far below a client's patience.
pub const DEFAULT_STORE_TIMEOUT: Duration = Duration::from_secs(10);

/// `call`, or the 503 of a store that did not answer within `limit`.
/// Dropping the call cancels only the wait: what the store was doing may
/// still finish (a mutation may still commit), which a retryable 503 says.
/// Not logged apart: the request's own line has the 503 and its latency,
/// and a frozen database under load would otherwise add a line per request.
async fn within<T>(
    limit: Duration,
    call: impl std::future::Future<Output = Result<T, Failure>>,
) -> Result<T, Failure> {
    tokio::time::timeout(limit, call).await.unwrap_or_else(|_| {
        Err(Failure::unavailable(
            "The store did not answer in time. Retry shortly.",
        ))
    })
}

/// [`Timeouts::body_read`] by default.
const BODY_READ: Duration = Duration::from_secs(30);

/// [`Timeouts::write`] by default (`serve --write-timeout`).
pub const DEFAULT_WRITE_TIMEOUT: Duration = Duration::from_secs(30);

/// Connections served at once by default (`serve --max-connections`): far
/// above what a team's agents open, below the usual 1024 file descriptors.
pub const DEFAULT_MAX_CONNECTIONS: usize = 512;

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            header_read: Duration::from_secs(10),
            body_read: BODY_READ,
            write: DEFAULT_WRITE_TIMEOUT,
            // A request whose body is still arriving at the signal may use
            // its whole body timeout and still be answered.
            shutdown_grace: BODY_READ,
            store: DEFAULT_STORE_TIMEOUT,
        }
    }
}

/// The router for `store` with the default [`Timeouts`].
pub fn router<S: Store>(store: Arc<S>) -> Router {
    router_with(store, Timeouts::default())
}

/// The router for `store` without a rate limit.
pub fn router_with<S: Store>(store: Arc<S>, timeouts: Timeouts) -> Router {
    router_limited(store, timeouts, None)
}

/// The router for `store`: one route per registry path, one method per
/// action; with `rate_limit`, each token may make that many requests.
pub fn router_limited<S: Store>(
    store: Arc<S>,
    timeouts: Timeouts,
    rate_limit: Option<RateLimit>,
) -> Router {
    let limiter = rate_limit.map(|rate| Arc::new(Limiter::new(rate)));
    let mut routes: BTreeMap<String, (MethodRouter<Arc<S>>, Vec<&'static str>)> = BTreeMap::new();
    for &action in ACTIONS {
        let filter = match action.method {
            Method::Get => MethodFilter::GET,
            Method::Post => MethodFilter::POST,
        };
        let limiter = limiter.clone();
        let handler = move |State(store): State<Arc<S>>, request: Request| {
            handle(action, store, request, timeouts, limiter)
        };
        let (route, methods) = routes
            .remove(&action.route_template())
            .unwrap_or_else(|| (MethodRouter::new(), Vec::new()));
        let mut methods = methods;
        methods.push(action.method.as_str());
        if action.method == Method::Get {
            // axum answers HEAD wherever it answers GET.
            methods.push("HEAD");
        }
        routes.insert(
            action.route_template(),
            (route.on(filter, handler), methods),
        );
    }
    let mut router = Router::new();
    for (path, (route, methods)) in routes {
        let allow = methods.join(", ");
        router = router.route(
            &path,
            route.fallback(move || async move {
                let mut response = failure_response(&Failure::new(
                    code::METHOD_NOT_ALLOWED,
                    format!("This route accepts {allow}."),
                ));
                if let Ok(value) = HeaderValue::from_str(&allow) {
                    response.headers_mut().insert(header::ALLOW, value);
                }
                response
            }),
        );
    }
    router
        .route(HEALTHZ, axum::routing::get(healthz).fallback(only_get))
        .route(
            READYZ,
            axum::routing::get(move |state| readyz::<S>(state, timeouts.store)).fallback(only_get),
        )
        .route(
            crate::openapi::ROUTE,
            axum::routing::get(openapi).fallback(only_get),
        )
        .fallback(|| async {
            failure_response(&Failure::new(code::NOT_FOUND, NO_SUCH_ROUTE.as_str()))
        })
        // The limit the `Bytes` extractor of `read_body` holds a body to.
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        // A panic becomes a 500 JSON answer instead of a dropped connection;
        // caught in place, not on a task of its own (a spawn per request is
        // a thread hand-off).
        .layer(CatchPanicLayer::custom(panic_response))
        // Outside the panic's layer, so its 500 is marked too.
        .layer(axum::middleware::map_response(hardened))
        // Outermost, so its line also has the status of a caught panic.
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(request_span)
                .on_request(())
                .on_response(|response: &Response<_>, latency: Duration, _: &Span| {
                    let status = response.status().as_u16();
                    // Whole microseconds, so the line says `3.589`, not
                    // `3.5891260000000003`.
                    let latency_ms = latency.as_micros() as f64 / 1000.0;
                    if response.status().is_client_error() {
                        // Refused: a client sending thousands a second
                        // costs a few lines, not megabytes.
                        log_refusal!(status, latency_ms, "request");
                    } else {
                        tracing::info!(status, latency_ms, "request");
                    }
                })
                .on_eos(())
                .on_failure(()),
        )
        .with_state(store)
}

/// Every answer is JSON or empty and meant for one caller: no client may
/// sniff it as another type, and no cache may keep it (a task read with one
/// agent's token is not another's to see).
async fn hardened(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// The span of one request's log line: its method and route template.
/// Never the path's ids, the query, a header or a body, so no token or
/// input can reach the log; an unknown route is caller-controlled noise and
/// is not logged either, nor is a method HTTP does not define (any token
/// is a method on the wire: a 350 KB one made a 350 KB line per request).
fn request_span(request: &Request) -> Span {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or("<no route>", MatchedPath::as_str);
    let method = request.method();
    let method = if STANDARD_METHODS.contains(method) {
        method.as_str()
    } else {
        "<other>"
    };
    tracing::info_span!("request", method = %method, route)
}

/// The methods of RFC 9110 and PATCH: those a log line names.
const STANDARD_METHODS: [axum::http::Method; 9] = [
    axum::http::Method::GET,
    axum::http::Method::HEAD,
    axum::http::Method::POST,
    axum::http::Method::PUT,
    axum::http::Method::DELETE,
    axum::http::Method::CONNECT,
    axum::http::Method::OPTIONS,
    axum::http::Method::TRACE,
    axum::http::Method::PATCH,
];

/// The answer to a request whose handler panicked: the 500 `server_error`
/// document, which names nothing of the panic.
fn panic_response(_: Box<dyn Any + Send + 'static>) -> Response {
    tracing::error!("handler panicked");
    failure_response(&Failure::new(
        code::SERVER_ERROR,
        "The server failed on this request.",
    ))
}

/// Liveness for load balancers: the process is up and serving HTTP.
pub const HEALTHZ: &str = crate::openapi::HEALTHZ;
/// Readiness for load balancers: the store answers too.
pub const READYZ: &str = crate::openapi::READYZ;

/// `GET /healthz`: 200 with an empty body. No authentication, no data.
async fn healthz() -> Response {
    Response::new(Body::empty())
}

/// `GET /readyz`: 200 with an empty body when the store answers, else the
/// 503 `server_error` document (which names nothing of the store).
async fn readyz<S: Store>(State(store): State<Arc<S>>, limit: Duration) -> Response {
    match within(limit, store.ready()).await {
        Ok(()) => Response::new(Body::empty()),
        Err(failure) => failure_response(&failure),
    }
}

/// Another method on a GET-only route: the JSON 405, as on every other
/// route. HEAD is answered wherever GET is, so `Allow` names both.
async fn only_get() -> Response {
    let mut response = failure_response(&Failure::new(
        code::METHOD_NOT_ALLOWED,
        "This route accepts GET, HEAD.",
    ));
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
    response
}

/// `GET /api/v1/openapi.json`: the OpenAPI document of this API, without
/// authentication (it holds nothing but the registry's public contract).
async fn openapi() -> Response {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let text = TEXT.get_or_init(crate::openapi::text);
    let mut response = Response::new(Body::from(text.as_str()));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// A socket bound for the server, with SIGINT and SIGTERM already handled:
/// the caller announces [`Bound::address`], then [`Bound::serve`]s.
pub struct Bound {
    listener: TcpListener,
    address: SocketAddr,
    signals: Signals,
}

/// Binds `listen` and registers the shutdown signals. They are registered
/// before the address can be announced, so a SIGTERM sent as soon as the
/// address is read is always graceful.
pub async fn bind(listen: SocketAddr) -> Result<Bound, Failure> {
    let listener = TcpListener::bind(listen).await.map_err(|e| {
        Failure::new(
            code::USAGE_ERROR,
            format!(
                "Cannot listen on {listen}: {e}. Choose another address with --listen (port 0 picks a free one)."
            ),
        )
        .field("listen", "An address this process can bind, e.g. 127.0.0.1:0.")
    })?;
    let address = listener
        .local_addr()
        .map_err(|e| Failure::new(code::SERVER_ERROR, format!("No local address: {e}.")))?;
    Ok(Bound {
        listener,
        address,
        signals: Signals::register()?,
    })
}

impl Bound {
    /// The address actually bound (the port a `:0` listen picked).
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// Serves `store` until SIGINT or SIGTERM, then finishes in-flight requests.
    pub async fn serve<S: Store>(self, store: Arc<S>, timeouts: Timeouts, limits: Limits) {
        let app = router_limited(store, timeouts, limits.rate_limit);
        serve_limited(
            self.listener,
            app,
            timeouts,
            limits,
            self.signals.received(),
        )
        .await;
        tracing::info!("agentteam-runtime stopped");
    }
}

/// What `serve` allows its clients beyond the [`Timeouts`].
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Connections served at once; more are answered 503 and closed.
    pub max_connections: usize,
    /// Connections served at once from one client address; `None`:
    /// unlimited (the default: behind a load balancer every connection
    /// comes from its address).
    pub per_address: Option<usize>,
    /// Requests per token; `None`: unlimited (the default).
    pub rate_limit: Option<RateLimit>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_connections: DEFAULT_MAX_CONNECTIONS,
            per_address: None,
            rate_limit: None,
        }
    }
}

/// [`serve_limited`] with the default [`Limits`].
pub async fn serve_on(
    listener: TcpListener,
    app: Router,
    timeouts: Timeouts,
    shutdown: impl std::future::Future<Output = ()>,
) {
    serve_limited(listener, app, timeouts, Limits::default(), shutdown).await;
}

/// Accepts HTTP/1.1 connections on `listener` until `shutdown` resolves,
/// then stops accepting and waits (at most `timeouts.shutdown_grace`) for
/// the connections in flight to finish their current request. At most
/// `limits.max_connections` are served at once, and `limits.per_address`
/// from one client address: one more is answered 503 with a single
/// non-blocking write and closed at once.
pub async fn serve_limited(
    listener: TcpListener,
    app: Router,
    timeouts: Timeouts,
    limits: Limits,
    shutdown: impl std::future::Future<Output = ()>,
) {
    use hyper_util::rt::{TokioIo, TokioTimer};
    use hyper_util::server::graceful::GracefulShutdown;
    use hyper_util::service::TowerToHyperService;

    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    let slots = Arc::new(tokio::sync::Semaphore::new(limits.max_connections));
    let by_address = shed::AddressSlots::default();
    let refusals = shed::Refusals::default();
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors and the like: back off, keep serving.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // One client that reconnects as fast as it is cut cannot hold every
        // slot, where a cap per address is set.
        let address_slot = match limits.per_address {
            None => None,
            Some(cap) => match by_address.take(peer.ip(), cap) {
                Some(slot) => Some(slot),
                None => {
                    refusals.refuse(stream);
                    log_refusal!(
                        max_connections_per_address = cap,
                        "connection refused: at --max-connections-per-address"
                    );
                    continue;
                }
            },
        };
        let Ok(slot) = Arc::clone(&slots).try_acquire_owned() else {
            // No parsing, no waiting: what the socket takes now, and the
            // request drained so the answer is not lost to a reset.
            refusals.refuse(stream);
            log_refusal!(
                max_connections = limits.max_connections,
                "connection refused: at --max-connections"
            );
            continue;
        };
        let _ = stream.set_nodelay(true);
        let abandoned = Abandoned::default();
        let connection = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(timeouts.header_read)
            .max_buf_size(wire::MAX_HEAD_BYTES)
            .serve_connection(
                TokioIo::new(WriteDeadline::new(stream, timeouts.write)),
                // The wire's own rules, then the router (`ingress`).
                TowerToHyperService::new(Ingress {
                    app: app.clone(),
                    abandoned: abandoned.clone(),
                }),
            );
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            // A client that stalls or hangs up ends only its own connection.
            // A body a refusal left unread is read beside it (`ingress`).
            let served = tokio::select! {
                served = connection => served,
                never = abandoned.drain() => match never {},
            };
            // A head hyper refuses (400, 414, 431) is a refusal like the
            // router's, logged as they are (hyper's words name no byte of
            // the request). A head that did not come in time is not: hyper
            // says the same of an idle kept-alive connection, which a load
            // balancer leaves open as a matter of course.
            if let Err(e) = served
                && (e.is_parse() || e.is_parse_too_large())
            {
                log_refusal!(error = %e, "request refused before any route");
            }
            drop((slot, address_slot));
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {},
        () = tokio::time::sleep(timeouts.shutdown_grace) => {
            tracing::warn!("shutdown grace period over; dropping connections still open");
        }
    }
}

/// SIGINT and SIGTERM, handled from the moment they are registered.
struct Signals {
    interrupt: Signal,
    terminate: Signal,
}

impl Signals {
    fn register() -> Result<Signals, Failure> {
        let register = |kind: SignalKind| {
            signal(kind).map_err(|e| {
                Failure::new(code::SERVER_ERROR, format!("Cannot handle signals: {e}."))
            })
        };
        Ok(Signals {
            interrupt: register(SignalKind::interrupt())?,
            terminate: register(SignalKind::terminate())?,
        })
    }

    /// Resolves on the first of either.
    async fn received(mut self) {
        tokio::select! {
            _ = self.interrupt.recv() => {},
            _ = self.terminate.recv() => {},
        }
        tracing::info!("shutting down: finishing in-flight requests");
    }
}

fn json_response(status: StatusCode, body: String) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

fn failure_response(failure: &Failure) -> Response {
    let status =
        StatusCode::from_u16(failure.http_status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = json_response(status, wire::error_json(failure));
    if status == StatusCode::UNAUTHORIZED {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    }
    if status == StatusCode::TOO_MANY_REQUESTS {
        let seconds = failure
            .details
            .get("retry_after_seconds")
            .and_then(Value::as_u64)
            .unwrap_or(1);
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    }
    if status == StatusCode::SERVICE_UNAVAILABLE {
        // The store is unreachable or saturated for now: clients that honour
        // Retry-After (the CLI does) wait a moment before the next attempt.
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    }
    response
}

async fn handle<S: Store>(
    action: &'static Action,
    store: Arc<S>,
    request: Request,
    timeouts: Timeouts,
    limiter: Option<Arc<Limiter>>,
) -> Response {
    match run(action, store, request, timeouts, limiter).await {
        Ok((status, data)) => json_response(status, wire::success_json(&data)),
        Err(failure) => failure_response(&failure),
    }
}

async fn run<S: Store>(
    action: &'static Action,
    store: Arc<S>,
    request: Request,
    timeouts: Timeouts,
    limiter: Option<Arc<Limiter>>,
) -> Result<(StatusCode, Value), Failure> {
    let (mut parts, body) = request.into_parts();
    let token_hash = bearer(&parts.headers)?;
    // Path ids that fail to decode cannot be the token's own: refused alike.
    let path: HashMap<String, String> =
        axum::extract::Path::<HashMap<String, String>>::from_request_parts(&mut parts, &())
            .await
            .map(|p| p.0)
            .unwrap_or_default();
    let admit =
        |record: Option<TokenRecord>| admit(action, record, &token_hash, limiter.as_deref(), &path);
    let mut body = BodyReader::new(body, timeouts.body_read);
    if let Some(stray) = stray_input(action, &parts) {
        admit(within(timeouts.store, store.find_token(&token_hash)).await?)?;
        return Err(match stray {
            // A GET's body is said with its query's own problems, which
            // are its input: one retry fixes both.
            Stray::Body => match query(action, &parts) {
                Err(query) => Failure {
                    message: format!("{} The body too: {BODY_NOT_READ}", query.message),
                    ..query
                },
                Ok(_) => Failure::new(code::INVALID_INPUT, BODY_NOT_READ),
            },
            Stray::Query(keys) if keys.is_empty() => Failure::new(code::INVALID_INPUT, NOT_READ),
            // A POST's query keys are said with its body's own problems,
            // so that one retry fixes both: a body that is in within a
            // moment and within the limit (else the keys alone, at once).
            Stray::Query(keys) => match body.by(Instant::now() + PRE_AUTH_WAIT).await {
                Ok(Some(bytes)) => {
                    with_query_keys(read_body(action, bytes).await.map(|(input, _)| input), keys)
                }
                _ => Failure::invalid_input(keys),
            },
        });
    }
    let mut read_early = None;
    if limiter.is_none() && store::reads_with_token(action) && small_body(&parts.headers) {
        // The token and the task in one read (`store::get_for_token`) once
        // the input is in: a small body arrives with its headers, and one
        // that has not within `PRE_AUTH_WAIT` is read on after its token
        // is admitted, as below. Only input that holds to its schema is
        // judged before the token: any other is worded (the costly part of
        // a refusal) only for a token that is admitted, as below, so a
        // forged token costs a schema check at most. A refusal of the input
        // waits for the token's, so every answer is the one of the order below.
        match body.by(Instant::now() + PRE_AUTH_WAIT).await {
            Ok(Some(bytes)) => match from_body_if_valid(action, &bytes) {
                Some(Ok((input, _))) => {
                    let read =
                        store::get_for_token(store.as_ref(), action, &token_hash, input, admit);
                    let data = within(timeouts.store, read).await?;
                    return Ok((status(action, &data), data));
                }
                Some(Err(refusal)) => {
                    admit(within(timeouts.store, store.find_token(&token_hash)).await?)?;
                    return Err(refusal);
                }
                None => read_early = Some(bytes),
            },
            Ok(None) => {}
            Err(refusal) => {
                admit(within(timeouts.store, store.find_token(&token_hash)).await?)?;
                return Err(refusal);
            }
        }
    }
    let principal = admit(within(timeouts.store, store.find_token(&token_hash)).await?)?;
    let (input, workflow) = match (action.method, read_early) {
        (Method::Get, _) => (query(action, &parts)?, WorkflowContext::default()),
        (Method::Post, Some(bytes)) => read_body(action, bytes).await?,
        (Method::Post, None) => read_body(action, body.whole().await?).await?,
    };
    let call = store::dispatch(store.as_ref(), action, &principal, input, &workflow);
    let data = within(timeouts.store, call).await?;
    Ok((status(action, &data), data))
}

/// [`wire::read_body`] of a POST's whole body. One over [`SMALL_BODY_BYTES`]
/// is decoded and validated on the blocking pool: a refusal of a body near
/// the size limit is worded in up to about a tenth of a second of CPU
/// (`validate::again`), which would otherwise hold one of the replica's few
/// async workers, and every request queued on it, for as long. At most
/// [`LARGE_BODIES_AT_ONCE`] are judged at once; the others wait their turn
/// without holding a thread.
async fn read_body(
    action: &'static Action,
    bytes: Bytes,
) -> Result<(Value, WorkflowContext), Failure> {
    if bytes.len() as u64 <= SMALL_BODY_BYTES {
        return wire::read_body(action, &bytes);
    }
    in_turn_off_the_workers(&LARGE_BODIES, move || wire::read_body(action, &bytes)).await?
}

/// `work` on the blocking pool once one of `turns`' permits is free; a
/// caller waits its turn without holding a thread.
async fn in_turn_off_the_workers<T: Send + 'static>(
    turns: &tokio::sync::Semaphore,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, Failure> {
    let _turn = turns.acquire().await;
    match tokio::task::spawn_blocking(work).await {
        Ok(done) => Ok(done),
        // As if it had panicked here: `CatchPanicLayer` answers it.
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(_) => Err(Failure::unavailable(
            "The server is shutting down; try again.",
        )),
    }
}

/// The 404 of a path no route has: where the registry's routes are
/// (`…/runtime/tasks`, one place per domain).
static NO_SUCH_ROUTE: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    let mut places: Vec<String> = Vec::new();
    for action in crate::registry::ACTIONS {
        let first = action.route.split('/').nth(1).unwrap_or_default();
        let place = format!("{}/{first}", crate::registry::RUNTIME_PREFIX);
        if !places.contains(&place) {
            places.push(place);
        }
    }
    format!(
        "No such route. Agent Runtime routes live under {}.",
        places.join(" and ")
    )
});

/// How many bodies over [`SMALL_BODY_BYTES`] one replica decodes and
/// validates at once. Judging a refused megabyte takes up to tens of
/// megabytes while it runs, so a flood of them is bounded by this, not by
/// the blocking pool (eight threads, which host name lookups need too):
/// eight at once took a replica to 514 MB, two to about 200 MB, as when
/// they were judged on its two async workers (docs/security.md).
const LARGE_BODIES_AT_ONCE: usize = 2;

static LARGE_BODIES: tokio::sync::Semaphore =
    tokio::sync::Semaphore::const_new(LARGE_BODIES_AT_ONCE);

fn status(action: &Action, data: &Value) -> StatusCode {
    StatusCode::from_u16(action.success.status(data)).unwrap_or(StatusCode::OK)
}

/// A GET's input, decoded from its query string and validated exactly as
/// the CLI validates it.
fn query(action: &Action, parts: &axum::http::request::Parts) -> Result<Value, Failure> {
    let pairs = query_pairs(parts).map_err(|NotUtf8(parameter)| {
        let failure = Failure::new(
            code::INVALID_JSON,
            "The query string is not valid URL encoding of UTF-8 text.",
        );
        match parameter {
            Some(name) => failure.field(name, "Not URL encoding of UTF-8 text."),
            None => failure,
        }
    })?;
    wire::read_query(action, &pairs)
}

/// A query string that is not URL encoding of UTF-8 text: the name of the
/// first parameter whose value is not (clipped, a token-like one
/// redacted), or `None` where a name itself is not, which cannot be shown
/// as sent.
struct NotUtf8(Option<String>);

/// The request's query string as its pairs, decoded as a form is (`&`
/// between pairs, empty ones skipped, `=` after the name, `+` a space).
/// A decoder that reads bytes that are not UTF-8 (`%ff`) as U+FFFD would
/// answer for, or repeat, text the caller never sent, so each name and
/// value must decode to UTF-8 text, and the first that does not is named.
fn query_pairs(parts: &axum::http::request::Parts) -> Result<Vec<(String, String)>, NotUtf8> {
    let decoded = |text: &str| {
        let spaced = match text.contains('+') {
            true => std::borrow::Cow::Owned(text.replace('+', " ")),
            false => std::borrow::Cow::Borrowed(text),
        };
        percent_encoding::percent_decode_str(&spaced)
            .decode_utf8()
            .map(|text| text.into_owned())
            .ok()
    };
    let raw = parts.uri.query().unwrap_or_default();
    raw.split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            let name = decoded(name).ok_or(NotUtf8(None))?;
            match decoded(value) {
                Some(value) => Ok((name, value)),
                None => Err(NotUtf8(Some(
                    crate::text::clip(&crate::redact::tokens(&name), 64).into_owned(),
                ))),
            }
        })
        .collect()
}

/// Input sent where its route does not read it.
enum Stray {
    /// A GET's body.
    Body,
    /// A POST's query string, each key named ([`stray_query_keys`]; none
    /// where no key is UTF-8 text).
    Query(BTreeMap<String, String>),
}

/// Input sent where its route does not read it: a POST's query string, a
/// GET's body. A caller that adds `?dryRun=true` to a write, or sends a
/// list's filters as a body, believes in them, and is told so before
/// anything changes or is answered unfiltered, rather than having them
/// ignored.
fn stray_input(action: &Action, parts: &axum::http::request::Parts) -> Option<Stray> {
    if action.method == Method::Get {
        let declared = |name| parts.headers.get(name).is_some();
        let sized = parts
            .headers
            .get(header::CONTENT_LENGTH)
            .and_then(|length| length.to_str().ok()?.parse::<u64>().ok())
            .is_some_and(|length| length > 0);
        return (sized || declared(header::TRANSFER_ENCODING)).then_some(Stray::Body);
    }
    parts.uri.query().filter(|query| !query.is_empty())?;
    Some(Stray::Query(stray_query_keys(parts)))
}

/// What a GET's body is told.
const BODY_NOT_READ: &str = "Not read: this route takes its input from its query string alone, not a body; send the fields there.";

/// What a POST's query parameter is told.
const NOT_READ: &str = "Not read: this route takes its input from its JSON body alone, not the query string; send a field there or leave it out.";

/// Each key of a POST's query string, by its name (clipped, a token-like
/// one redacted; one that is not UTF-8 text once decoded is not shown),
/// with [`NOT_READ`].
fn stray_query_keys(parts: &axum::http::request::Parts) -> BTreeMap<String, String> {
    query_pairs(parts)
        .unwrap_or_default()
        .iter()
        .map(|(key, _)| crate::text::clip(&crate::redact::tokens(key), 64).into_owned())
        .filter(|key| !key.is_empty())
        .map(|key| (key, NOT_READ.to_string()))
        .collect()
}

/// The refusal of a POST whose query string has `keys`, with what its
/// body's own reading (`checked`) found: one answer for both. A key also
/// in the body keeps the body's word, with the query's after it; a body
/// that is no JSON is said in the message beside the keys.
fn with_query_keys(checked: Result<Value, Failure>, keys: BTreeMap<String, String>) -> Failure {
    match checked {
        Ok(_) => Failure::invalid_input(keys),
        Err(body) if body.is(code::INVALID_INPUT) => body
            .with_field_errors(keys, |in_body, said| {
                format!("{in_body} Also in the query string: {said}")
            }),
        Err(other) => {
            let said = Failure::invalid_input(keys);
            Failure {
                message: format!("{} The body too: {}", said.message, other.message),
                ..said
            }
        }
    }
}

/// [`wire::read_body`] of a body that decodes and holds to its schema; `None`,
/// without wording why, for any other.
fn from_body_if_valid(
    action: &Action,
    body: &[u8],
) -> Option<Result<(Value, WorkflowContext), Failure>> {
    let body = wire::decode_body(action, body)
        .ok()
        .filter(|body| body.problems.is_empty())?;
    Some(
        crate::validate::validate_if_schema_holds(action, body.input)?
            .map(|input| (input, body.workflow)),
    )
}

/// How long a `task_get` waits for its body before its token is judged.
/// Its few dozen bytes come with its headers; a client that holds them
/// back is asked for them again only once its token is admitted, so a
/// forged token holds a connection for this long at most, not for the
/// whole body timeout.
const PRE_AUTH_WAIT: Duration = Duration::from_secs(1);

/// The largest body read before its request's token is judged (a
/// `task_get`'s input is a few dozen bytes): declared by `Content-Length`,
/// so nothing larger is ever read for a token that may be refused.
const SMALL_BODY_BYTES: u64 = 16 * 1024;

fn small_body(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
        .is_some_and(|length| length <= SMALL_BODY_BYTES)
}

fn unauthorized() -> Failure {
    Failure::new(
        code::UNAUTHORIZED,
        "A valid agent bearer token is required; this one is missing, unknown, expired or revoked.",
    )
}

/// The hash of the request's bearer token, or `unauthorized` for a missing
/// or malformed one, or for several (a proxy in front may read another than
/// this server would: neither is taken).
fn bearer(headers: &HeaderMap) -> Result<[u8; 32], Failure> {
    if headers
        .get_all(header::AUTHORIZATION)
        .iter()
        .nth(1)
        .is_some()
    {
        return Err(Failure::new(
            code::UNAUTHORIZED,
            "Send one Authorization header; this request has several.",
        ));
    }
    let token = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        // The scheme's name is case-insensitive (RFC 9110 §11.1).
        .and_then(|v| v.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim())
        .filter(|t| t.starts_with(auth::TOKEN_PREFIX) && t.len() <= 256)
        .ok_or_else(unauthorized)?;
    Ok(auth::hash_token(token))
}

/// Whom a request acts for: the principal of its token's `record` (the
/// store's find for `token_hash`), once the token is live, within its rate
/// limit, of a scope that covers `action`, and on its own workspace and
/// agent `path`. The same `unauthorized` for an unknown, expired or revoked
/// token as for a missing one.
fn admit(
    action: &Action,
    record: Option<TokenRecord>,
    token_hash: &[u8; 32],
    limiter: Option<&Limiter>,
    path: &HashMap<String, String>,
) -> Result<Principal, Failure> {
    let record = record
        .filter(|record| auth::hashes_match(&record.hash, token_hash))
        .ok_or_else(unauthorized)?;
    if let Some(limiter) = limiter {
        rate_limit(limiter, *token_hash)?;
    }
    within_scope(action, record.scope)?;
    let principal = record.principal;
    if path.get("workspaceId") != Some(&principal.workspace_id)
        || path.get("agentId") != Some(&principal.agent_id)
    {
        return Err(Failure::new(
            code::FORBIDDEN,
            "This token acts only on its own workspace and agent path.",
        ));
    }
    Ok(principal)
}

/// Refuses, with 403 `forbidden` naming both classes, an action whose
/// permission class (the registry's, §9.2) is above the token's scope.
fn within_scope(action: &Action, scope: Permission) -> Result<(), Failure> {
    if action.permission <= scope {
        return Ok(());
    }
    Err(Failure::new(
        code::FORBIDDEN,
        format!(
            "{} needs a token of scope {} or wider; this token's scope is {}. Ask the operator for a token issued with `--scope {}`.",
            action.name(),
            action.permission,
            scope,
            action.permission
        ),
    )
    .detail("needed_scope", Value::from(action.permission.as_str()))
    .detail("token_scope", Value::from(scope.as_str())))
}

/// Takes one request from the bucket of the (authenticated) bearer token, or
/// refuses with 429 `rate_limited` and the seconds to wait. Keyed by the
/// token's hash, the one authentication computed, so one token is one
/// bucket however its header is spelt.
fn rate_limit(limiter: &Limiter, token_hash: [u8; 32]) -> Result<(), Failure> {
    limiter.admit(token_hash).map_err(|wait| {
        let seconds = wait.as_secs_f64().ceil().max(1.0) as u64;
        Failure::new(
            code::RATE_LIMITED,
            // The wait is in `Retry-After` and `details.retry_after_seconds`, which
            // the CLI says once ("Retry after N s."), not twice.
            "This token's request rate limit is used up.",
        )
        .detail("retry_after_seconds", Value::from(seconds))
    })
}

/// A request's body, read within the body timeout of the end of its
/// headers and to at most [`MAX_BODY_BYTES`], possibly in two turns: what
/// arrives by a first deadline, then the rest. A declared oversized body is
/// refused before any of it is read, an undeclared one as soon as it
/// passes the limit. The timeout is one deadline for the whole body, not
/// tower-http's `RequestBodyTimeoutLayer`, which bounds only the pause
/// between two chunks: a client dribbling a byte at a time would hold its
/// connection for as long as the body limit lets it.
struct BodyReader {
    declared: u64,
    chunks: BodyDataStream,
    read: Vec<u8>,
    deadline: Instant,
}

impl BodyReader {
    fn new(body: Body, limit: Duration) -> BodyReader {
        BodyReader {
            // hyper gives a body with a Content-Length that length as its size.
            declared: body.size_hint().lower(),
            chunks: body.into_data_stream(),
            read: Vec::new(),
            deadline: Instant::now() + limit,
        }
    }

    /// The whole body.
    async fn whole(&mut self) -> Result<Bytes, Failure> {
        match self.by(self.deadline).await? {
            Some(body) => Ok(body),
            None => Err(Failure {
                // 408: the CLI classifies it as a retryable `timeout`.
                http_status: 408,
                ..Failure::new(
                    code::TIMEOUT,
                    "The request body did not arrive within the time limit.",
                )
            }),
        }
    }

    /// The whole body if it has arrived by `until`; `None` if not, keeping
    /// what has arrived for the next turn.
    async fn by(&mut self, until: Instant) -> Result<Option<Bytes>, Failure> {
        let too_large = || {
            Failure::new(
                code::INPUT_TOO_LARGE,
                format!("The request body exceeds {MAX_BODY_BYTES} bytes."),
            )
        };
        if self.declared > MAX_BODY_BYTES as u64 {
            return Err(too_large());
        }
        loop {
            // Cancelling `next` loses no chunk: it has none until it is ready.
            match tokio::time::timeout_at(until.min(self.deadline), self.chunks.next()).await {
                Err(_) => return Ok(None),
                Ok(None) => return Ok(Some(Bytes::from(std::mem::take(&mut self.read)))),
                Ok(Some(Ok(chunk))) if self.read.len() + chunk.len() <= MAX_BODY_BYTES => {
                    self.read.extend_from_slice(&chunk);
                }
                Ok(Some(Ok(_))) => return Err(too_large()),
                Ok(Some(Err(_))) => {
                    return Err(Failure::new(
                        code::INVALID_JSON,
                        "The request body could not be read.",
                    ));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::find;
    use crate::runtime::store::{
        CheckpointInput, CreateInput, DeleteInput, ListQuery, SetClaimInput, TaskLocator,
        TokenRecord, UpdateInput,
    };
    use crate::wire::WorkflowContext;

    /// A query string is read as a form is (empty pairs skipped, `+` a
    /// space, `%2B` a plus, a name alone an empty value); bytes that are
    /// not UTF-8 are refused, naming the parameter whose value holds them.
    #[test]
    fn a_query_string_is_read_as_a_form_and_its_bad_parameter_named() {
        let pairs = |query: &str| {
            let (parts, ()) = axum::http::Request::builder()
                .uri(format!("/tasks?{query}"))
                .body(())
                .unwrap()
                .into_parts();
            query_pairs(&parts).map_err(|NotUtf8(name)| name)
        };
        let owned = |list: &[(&str, &str)]| {
            list.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            pairs("a=1&&b=two+words%2B&c&d=x=y").ok(),
            Some(owned(&[
                ("a", "1"),
                ("b", "two words+"),
                ("c", ""),
                ("d", "x=y")
            ]))
        );
        assert_eq!(
            pairs("channel=eng&query=caf%C3%A9").ok(),
            Some(owned(&[("channel", "eng"), ("query", "café")]))
        );
        assert_eq!(
            pairs("channel=eng&query=%ff").err(),
            Some(Some("query".into()))
        );
        assert_eq!(pairs("channel=eng&%ff=1").err(), Some(None));
    }

    /// A body near the size limit whose refusal takes its validation a
    /// while to word (`validate::again`) is judged off the async worker:
    /// on a runtime of one thread, a task spawned before it runs while it
    /// is judged. Judged on the worker, it would run only after.
    #[tokio::test(flavor = "current_thread")]
    async fn a_large_body_is_judged_off_the_async_workers() {
        let numbers: Vec<String> = (1..=100_000).map(|i| format!("#{i}")).collect();
        let body = serde_json::json!({"channel": "eng", "numbers": numbers, "claimed": true});
        let body = Bytes::from(body.to_string());
        assert!(body.len() as u64 > SMALL_BODY_BYTES);
        let ran = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let beside = tokio::spawn({
            let ran = ran.clone();
            async move { ran.store(true, std::sync::atomic::Ordering::SeqCst) }
        });
        let action = find("task", "set_claim").unwrap();
        let refused = read_body(action, body).await.unwrap_err();
        assert!(ran.load(std::sync::atomic::Ordering::SeqCst));
        assert_eq!(refused.code, code::INVALID_INPUT.code);
        beside.await.unwrap();
        // A small body is judged in place, as before.
        let small = Bytes::from(r##"{"channel": "eng", "numbers": ["#1"], "claimed": true}"##);
        assert!(read_body(action, small).await.is_err());
    }

    /// Large bodies are judged at most [`LARGE_BODIES_AT_ONCE`] at once:
    /// six that each take a while overlap two by two, never more. (Turns
    /// of the test's own: the replica's are shared by every test here.)
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn large_bodies_are_judged_a_few_at_once() {
        use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
        static TURNS: tokio::sync::Semaphore =
            tokio::sync::Semaphore::const_new(LARGE_BODIES_AT_ONCE);
        let running = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let judgings: Vec<_> = (0..6)
            .map(|_| {
                let (running, most) = (running.clone(), most.clone());
                tokio::spawn(in_turn_off_the_workers(&TURNS, move || {
                    let now = running.fetch_add(1, SeqCst) + 1;
                    most.fetch_max(now, SeqCst);
                    std::thread::sleep(Duration::from_millis(200));
                    running.fetch_sub(1, SeqCst);
                }))
            })
            .collect();
        for judging in judgings {
            judging.await.unwrap().unwrap();
        }
        assert_eq!(most.load(SeqCst), LARGE_BODIES_AT_ONCE);
    }

    /// Knows every token as one agent's; every task operation panics.
    struct Panicking(Principal);

    impl Store for Panicking {
        async fn find_token(&self, hash: &[u8; 32]) -> Result<Option<TokenRecord>, Failure> {
            Ok(Some(TokenRecord {
                hash: hash.to_vec(),
                principal: self.0.clone(),
                scope: crate::registry::Permission::Destructive,
            }))
        }
        async fn list(&self, _: &Principal, _: &ListQuery) -> Result<Value, Failure> {
            panic!("a bug in a read")
        }
        async fn get(&self, _: &Principal, _: &TaskLocator) -> Result<Value, Failure> {
            panic!("a bug in a read")
        }
        async fn board_labels(&self, _: &Principal, _: &str) -> Result<Vec<String>, Failure> {
            panic!("a bug in a read")
        }
        async fn usable_boards(&self, _: &Principal) -> Result<Vec<String>, Failure> {
            panic!("a bug in a read")
        }
        async fn other_boards_with(
            &self,
            _: &Principal,
            _: &ListQuery,
        ) -> Result<Vec<String>, Failure> {
            panic!("a bug in a read")
        }
        async fn create(
            &self,
            _: &Principal,
            _: &CreateInput,
            _: &WorkflowContext,
        ) -> Result<Value, Failure> {
            panic!("a bug in a mutation")
        }
        async fn update(&self, _: &Principal, _: &UpdateInput) -> Result<Value, Failure> {
            panic!("a bug in a mutation")
        }
        async fn set_claim(&self, _: &Principal, _: &SetClaimInput) -> Result<Value, Failure> {
            panic!("a bug in a mutation")
        }
        async fn checkpoint(&self, _: &Principal, _: &CheckpointInput) -> Result<Value, Failure> {
            panic!("a bug in a mutation")
        }
        async fn delete(&self, _: &Principal, _: &DeleteInput) -> Result<Value, Failure> {
            panic!("a bug in a mutation")
        }
        async fn ready(&self) -> Result<(), Failure> {
            Ok(())
        }
    }

    /// A panic in a read or in a mutation
    /// is a 500 JSON answer on a live connection, and the server goes on.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_panicking_operation_answers_500_and_the_server_goes_on() {
        let principal = Principal {
            workspace_id: "ws_1".into(),
            agent_id: "ag_1".into(),
            handle: "a".into(),
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(serve_on(
            listener,
            router(Arc::new(Panicking(principal))),
            Timeouts::default(),
            async {
                let _ = stopped.await;
            },
        ));
        let client = reqwest::Client::new();
        let calls = [
            ("get", serde_json::json!({"channel": "eng", "number": 1})),
            (
                "create",
                serde_json::json!({"channel": "eng", "tasks": [{"title": "t"}]}),
            ),
            ("get", serde_json::json!({"channel": "eng", "number": 2})),
        ];
        for (verb, input) in calls {
            let action = find("task", verb).unwrap();
            let answer = client
                .post(format!("{base}{}", action.route_for("ws_1", "ag_1")))
                .bearer_auth("at_anything")
                .header("content-type", "application/json")
                .body(input.to_string())
                .send()
                .await
                .unwrap();
            assert_eq!(answer.status(), 500, "task.{verb}");
            // Marked as every answer is, though the panic's layer wrote it.
            assert_eq!(answer.headers()["x-content-type-options"], "nosniff");
            assert_eq!(answer.headers()["cache-control"], "no-store");
            let body: Value = serde_json::from_slice(&answer.bytes().await.unwrap()).unwrap();
            assert_eq!(body["error"]["code"], "server_error", "task.{verb}: {body}");
            assert!(!body.to_string().contains("a bug"), "{body}");
        }
        stop.send(()).unwrap();
        server.await.unwrap();
    }
}
