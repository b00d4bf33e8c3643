//! What a request meets on arriving from a socket, before the router: the
//! rules of the HTTP/1.1 wire that no route decides. [`Ingress`] is the
//! service each connection runs; it refuses a request without exactly one
//! valid `Host`, and hands the router a body that, left unread, is read to
//! its end and discarded ([`Unread`]) so that a refusal reaches a client
//! still sending.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use axum::Router;
use axum::body::{Body, Bytes, HttpBody};
use axum::http::{HeaderValue, Request, StatusCode, Version, header};
use axum::response::Response;
use futures_util::future::{Either, Ready, ready};
use hyper::body::{Frame, Incoming, SizeHint};
use tokio::sync::Notify;
use tower_service::Service;

use crate::runtime::log::log_refusal;
use crate::runtime::shed::LINGER_TIME;
use crate::wire::MAX_BODY_BYTES;

/// The most of a body left unread that is read and discarded: a body four
/// times the size limit is still drained, so a client told 413 while it
/// sends a body somewhat over it reads the answer; beyond, the connection
/// is closed, as a client sending that much is not one to wait for.
const DRAIN_BYTES: u64 = 4 * MAX_BODY_BYTES as u64;

/// The service of one connection: `host_refusal`, then the router with
/// the request's body as [`Unread`].
#[derive(Clone)]
pub struct Ingress {
    pub app: Router,
    /// The connection's place for a body left unread.
    pub abandoned: Abandoned,
}

impl Service<Request<Incoming>> for Ingress {
    type Response = Response;
    type Error = Infallible;
    type Future =
        Either<Ready<Result<Response, Infallible>>, <Router as Service<Request<Unread>>>::Future>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        // The router is always ready.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<Incoming>) -> Self::Future {
        if let Some(refusal) = host_refusal(&request) {
            return Either::Left(ready(Ok(refusal)));
        }
        // A client that waits for `100 Continue` sends no body unless asked:
        // reading it to drain it would ask for what is not wanted.
        let abandoned =
            (!request.headers().contains_key(header::EXPECT)).then(|| self.abandoned.clone());
        let request = request.map(|body| Unread {
            body: Some(body),
            read: false,
            abandoned,
        });
        Either::Right(self.app.call(request))
    }
}

/// RFC 9112 §3.2: an HTTP/1.1 request names its server in exactly one
/// `Host` field (HTTP/1.0 may omit it), and a request with none, two, or
/// one that is not a host and port is answered 400. With two, a proxy in
/// front and this runtime could each read another; without the rule, a
/// client this strict a server refuses would work here and nowhere else.
/// As hyper's own 400s, it has no body and closes the connection: no route
/// is reached, so no error document is chosen (docs/contract.md, the
/// HTTP surface).
fn host_refusal<B>(request: &Request<B>) -> Option<Response> {
    let mut hosts = request.headers().get_all(header::HOST).iter();
    let good = match (hosts.next(), hosts.next()) {
        (Some(host), None) => host.is_empty() || is_authority(host.as_bytes()),
        (None, _) => request.version() < Version::HTTP_11,
        (Some(_), Some(_)) => false,
    };
    if good {
        return None;
    }
    log_refusal!(status = 400u16, "request refused: no single valid Host");
    let mut response = Response::new(Body::empty());
    *response.status_mut() = StatusCode::BAD_REQUEST;
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    Some(response)
}

/// `uri-host [ ":" port ]` (RFC 3986): a bracketed IP literal or a
/// reg-name, then perhaps a colon and digits; no user information. Read
/// in place, as it is on every request (`http::uri::Authority` copies it).
fn is_authority(host: &[u8]) -> bool {
    let (name, port) = if host.first() == Some(&b'[') {
        match host.iter().position(|&b| b == b']') {
            Some(end) => host.split_at(end + 1),
            None => return false,
        }
    } else {
        match host.iter().rposition(|&b| b == b':') {
            Some(colon) => host.split_at(colon),
            None => (host, &[][..]),
        }
    };
    let port_ok = match port.split_first() {
        None => true,
        Some((colon, digits)) => *colon == b':' && digits.iter().all(u8::is_ascii_digit),
    };
    let name_ok = match name {
        [b'[', literal @ .., b']'] => {
            !literal.is_empty()
                && literal
                    .iter()
                    .all(|&b| b.is_ascii_alphanumeric() || b":.%-_~".contains(&b))
        }
        _ => {
            !name.is_empty()
                && name
                    .iter()
                    .all(|&b| b.is_ascii_alphanumeric() || b"-._~%!$&'()*+,;=".contains(&b))
        }
    };
    name_ok && port_ok
}

/// A request's body as the router reads it. Dropped without a read (a
/// refusal answered before the body: a forged token, no such route, a
/// declared size over the limit), it is handed to its connection's
/// [`Abandoned`], which reads it to its end and discards it, at most
/// `DRAIN_BYTES` within `shed::LINGER_TIME` (the time a connection refused
/// at the cap is read for), on the connection's own task. A body
/// the router began to read and left was too slow or too large as it came
/// (408, 413): the connection is closed on it, as before. Without it,
/// hyper closes a connection whose body is dropped unread with the body
/// still arriving, the kernel answers the arriving bytes with a reset, and
/// a client still sending loses the answer (a broken pipe, 18 of 20 in an
/// audit). Drained to its end, the connection serves the next request.
pub struct Unread {
    body: Option<Incoming>,
    /// Whether the router has polled the body.
    read: bool,
    /// Where an unread body goes; `None` when the client waits for
    /// `100 Continue` (it sends no body unless asked for it).
    abandoned: Option<Abandoned>,
}

impl HttpBody for Unread {
    type Data = Bytes;
    type Error = hyper::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, hyper::Error>>> {
        let this = self.get_mut();
        this.read = true;
        match this.body.as_mut() {
            Some(body) => Pin::new(body).poll_frame(cx),
            None => Poll::Ready(None),
        }
    }

    fn is_end_stream(&self) -> bool {
        self.body.as_ref().is_none_or(Incoming::is_end_stream)
    }

    fn size_hint(&self) -> SizeHint {
        self.body
            .as_ref()
            .map_or_else(|| SizeHint::with_exact(0), Incoming::size_hint)
    }
}

impl Drop for Unread {
    fn drop(&mut self) {
        let (Some(body), Some(abandoned)) = (self.body.take(), self.abandoned.take()) else {
            return;
        };
        if self.read || body.is_end_stream() {
            return;
        }
        if body
            .size_hint()
            .upper()
            .is_some_and(|length| length > DRAIN_BYTES)
        {
            return;
        }
        abandoned.hand_over(body);
    }
}

/// One connection's place for a body the router left unread, and the
/// reading that empties it ([`Abandoned::drain`]), polled beside the
/// connection on the connection's task: no task, and no allocation, per
/// request. HTTP/1.1 reads one request at a time, so one place is enough.
#[derive(Clone, Default)]
pub struct Abandoned(Arc<AbandonedBody>);

#[derive(Default)]
struct AbandonedBody {
    body: Mutex<Option<Incoming>>,
    handed_over: Notify,
}

impl Abandoned {
    fn hand_over(&self, body: Incoming) {
        *self.0.body.lock().unwrap_or_else(PoisonError::into_inner) = Some(body);
        self.0.handed_over.notify_one();
    }

    /// Reads each body handed over to its end and drops what it reads,
    /// within the bounds; never ends (the connection's end drops it).
    pub async fn drain(&self) -> Infallible {
        loop {
            self.0.handed_over.notified().await;
            let body = self
                .0
                .body
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            if let Some(body) = body {
                discard(body).await;
            }
        }
    }
}

/// Reads `body` to its end and drops what it reads, within the bounds.
async fn discard(mut body: Incoming) {
    let read_all = async {
        let mut read = 0u64;
        while let Some(Ok(frame)) =
            std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await
        {
            read += frame.data_ref().map_or(0, |data| data.len() as u64);
            if read > DRAIN_BYTES {
                return;
            }
        }
    };
    let _ = tokio::time::timeout(LINGER_TIME, read_all).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `Host` may hold: a name or address and perhaps a port.
    #[test]
    fn a_host_is_a_name_or_address_and_perhaps_a_port() {
        for good in [
            "a",
            "agentteam.internal",
            "127.0.0.1:8787",
            "[::1]:8787",
            "[::1]",
            "[fe80::1%25eth0]:80",
            "host:",
            "xn--bcher-kva.example",
        ] {
            assert!(is_authority(good.as_bytes()), "{good}");
        }
        for bad in [
            "user@a",
            "a b",
            "a/b",
            ":80",
            "[::1",
            "[]:80",
            "a:8x",
            "a:80:80",
            "a\\b",
            "a?b",
            "a#b",
            "\u{e9}.example",
        ] {
            assert!(!is_authority(bad.as_bytes()), "{bad}");
        }
    }
}
