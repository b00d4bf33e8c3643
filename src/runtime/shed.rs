//! How the server sheds abusive clients (README "Limits"): a write deadline
//! for clients that stop reading, a connection cap answered at once (and
//! its refused requests drained, not reset), an
//! optional per-token rate limit; the refusals' log lines are sampled by
//! [`log::Sampler`](super::log::Sampler). [`server`](super::server) wires
//! them in.

use std::collections::HashMap;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::Semaphore;
use tokio::time::Sleep;

/// A connection whose writes must make progress: once a write has waited
/// `limit` without the peer taking a byte (a client that pipelines requests
/// and never reads the answers fills its window, then ours), it fails with
/// `TimedOut` and hyper closes the connection. Reads are untouched: hyper's
/// header read timeout and the body deadline bound them, and an idle
/// keep-alive connection waits for its next head under the former.
pub struct WriteDeadline<S> {
    inner: S,
    limit: Duration,
    stalled: Option<Pin<Box<Sleep>>>,
}

impl<S> WriteDeadline<S> {
    pub fn new(inner: S, limit: Duration) -> Self {
        WriteDeadline {
            inner,
            limit,
            stalled: None,
        }
    }

    /// After the inner write's `poll`: progress disarms the deadline; a
    /// `Pending` arms it (once) and fails the write when it expires.
    fn watch<T>(&mut self, cx: &mut Context<'_>, poll: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        match poll {
            Poll::Ready(result) => {
                self.stalled = None;
                Poll::Ready(result)
            }
            Poll::Pending => {
                let limit = self.limit;
                let stalled = self
                    .stalled
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
                if stalled.as_mut().poll(cx).is_ready() {
                    Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the client took no answer bytes within the write timeout",
                    )))
                } else {
                    Poll::Pending
                }
            }
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for WriteDeadline<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for WriteDeadline<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.watch(cx, poll)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.watch(cx, poll)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.inner).poll_flush(cx);
        self.watch(cx, poll)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Refused connections that may drain their request at once; beyond
/// these, a refused connection is closed as soon as its answer is written.
const MAX_LINGERING: usize = 64;
/// How long a refused connection's request is read and discarded after
/// its answer (nginx's lingering close waits as long); a request body a
/// refusal left unread is read as long (`ingress`).
pub const LINGER_TIME: Duration = Duration::from_secs(2);
/// How much of it (a request's head and body at their limits).
const LINGER_BYTES: usize = crate::wire::MAX_HEAD_BYTES + crate::wire::MAX_BODY_BYTES;

/// The answer to a connection beyond `--max-connections` (or the cap of its
/// address), and the connections still draining theirs.
///
/// The 503 is written with one non-blocking `try_write`, so a flood of
/// connections costs the server no request parsing and no waiting. Closing
/// the socket then, with the client's request unread, would make the kernel
/// reset the connection: a client still sending a body gets a broken pipe,
/// and one that has sent it may lose the 503 it had not read yet. So the
/// answer is followed by a half-close, and what the client sends is read
/// and discarded until it closes, for at most `LINGER_TIME` and
/// `LINGER_BYTES` (the lingering close of nginx and Apache), on at most
/// `MAX_LINGERING` connections at once.
pub struct Refusals {
    answer: Arc<[u8]>,
    lingering: Arc<Semaphore>,
}

impl Default for Refusals {
    fn default() -> Self {
        let body = crate::wire::error_json(&crate::error::Failure::new(
            crate::error::code::SERVER_ERROR,
            "The server is at its connection limit. Retry shortly.",
        ));
        let answer = format!(
            "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nx-content-type-options: nosniff\r\ncache-control: no-store\r\nretry-after: 1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        Refusals {
            answer: answer.into_bytes().into(),
            lingering: Arc::new(Semaphore::new(MAX_LINGERING)),
        }
    }
}

impl Refusals {
    /// Answers `stream` 503 and closes it, draining its request first
    /// where a lingering slot is free.
    pub fn refuse(&self, stream: TcpStream) {
        let _ = stream.try_write(&self.answer);
        if let Ok(slot) = Arc::clone(&self.lingering).try_acquire_owned() {
            tokio::spawn(async move {
                linger(stream).await;
                drop(slot);
            });
        }
    }
}

/// Half-closes `stream` (the answer is whole) and discards what the client
/// still sends, until it closes or the bounds are reached.
async fn linger(mut stream: TcpStream) {
    let _ = stream.shutdown().await;
    let mut scratch = [0u8; 16 * 1024];
    let mut left = LINGER_BYTES;
    let _ = tokio::time::timeout(LINGER_TIME, async {
        while left > 0 {
            match stream.read(&mut scratch).await {
                Ok(0) | Err(_) => break,
                Ok(n) => left = left.saturating_sub(n),
            }
        }
    })
    .await;
}

/// The connections each client address holds, where they are capped: a
/// slot is taken at accept and given back when its connection ends.
#[derive(Clone, Default)]
pub struct AddressSlots(Arc<Mutex<HashMap<IpAddr, usize>>>);

/// One connection's place in [`AddressSlots`], given back on drop.
pub struct AddressSlot {
    slots: AddressSlots,
    address: IpAddr,
}

impl AddressSlots {
    /// A slot for `address`, unless it holds `cap` already.
    pub fn take(&self, address: IpAddr, cap: usize) -> Option<AddressSlot> {
        let mut held = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let count = held.entry(address).or_default();
        if *count >= cap {
            return None;
        }
        *count += 1;
        Some(AddressSlot {
            slots: self.clone(),
            address,
        })
    }
}

impl Drop for AddressSlot {
    fn drop(&mut self) {
        let mut held = self.slots.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = held.get_mut(&self.address) {
            *count -= 1;
            if *count == 0 {
                held.remove(&self.address);
            }
        }
    }
}

/// A request rate: `N/s`, `N/m` or `N/h` (`--rate-limit 200/s`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateLimit {
    pub requests: u32,
    pub per: Duration,
}

impl FromStr for RateLimit {
    type Err = String;

    fn from_str(text: &str) -> Result<RateLimit, String> {
        let bad = || format!("`{text}` is not a rate: write N/s, N/m or N/h, e.g. 200/s");
        let (count, unit) = text.trim().split_once('/').ok_or_else(bad)?;
        let requests: u32 = count.trim().parse().map_err(|_| bad())?;
        if requests == 0 {
            return Err("a rate limit allows at least 1 request".into());
        }
        let per = match unit.trim() {
            "s" | "sec" | "second" => Duration::from_secs(1),
            "m" | "min" | "minute" => Duration::from_secs(60),
            "h" | "hour" => Duration::from_secs(3600),
            _ => return Err(bad()),
        };
        Ok(RateLimit { requests, per })
    }
}

/// One token's bucket: it holds up to `requests` and refills at the rate.
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// Per-token token buckets, keyed by the token's SHA-256 and filled only
/// for authenticated tokens, so forged tokens cannot grow the map.
pub struct Limiter {
    rate: RateLimit,
    buckets: Mutex<HashMap<[u8; 32], Bucket>>,
}

/// Buckets kept before full (idle) ones are dropped.
const PRUNE_ABOVE: usize = 4096;

impl Limiter {
    pub fn new(rate: RateLimit) -> Limiter {
        Limiter {
            rate,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one request from `key`'s bucket, or says how long until one is
    /// there.
    pub fn admit(&self, key: [u8; 32]) -> Result<(), Duration> {
        self.admit_at(key, Instant::now())
    }

    fn admit_at(&self, key: [u8; 32], now: Instant) -> Result<(), Duration> {
        let capacity = f64::from(self.rate.requests);
        let per_second = capacity / self.rate.per.as_secs_f64();
        let refill = |b: &Bucket| {
            (b.tokens + now.saturating_duration_since(b.at).as_secs_f64() * per_second)
                .min(capacity)
        };
        let mut buckets = self
            .buckets
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if buckets.len() > PRUNE_ABOVE {
            buckets.retain(|_, b| refill(b) < capacity);
        }
        let bucket = buckets.entry(key).or_insert(Bucket {
            tokens: capacity,
            at: now,
        });
        bucket.tokens = refill(bucket);
        bucket.at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - bucket.tokens) / per_second))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_holds_at_most_its_cap_and_leaves_nothing_behind() {
        let slots = AddressSlots::default();
        let (one, other): (IpAddr, IpAddr) = ([127, 0, 0, 1].into(), [10, 0, 0, 2].into());
        let mut held: Vec<AddressSlot> = (0..2).map(|_| slots.take(one, 2).unwrap()).collect();
        assert!(slots.take(one, 2).is_none());
        let theirs = slots.take(other, 2).expect("another address has its own");
        held.pop();
        held.push(
            slots
                .take(one, 2)
                .expect("a slot given back is taken again"),
        );
        drop((held, theirs));
        // Every address gone once its connections end: no entry per
        // client ever seen.
        assert!(slots.0.lock().unwrap().is_empty());
    }

    #[test]
    fn rates_parse_and_bad_ones_say_how_to_write_them() {
        assert_eq!(
            "200/s".parse::<RateLimit>().unwrap(),
            RateLimit {
                requests: 200,
                per: Duration::from_secs(1)
            }
        );
        assert_eq!(
            "30/min".parse::<RateLimit>().unwrap().per,
            Duration::from_secs(60)
        );
        for bad in ["", "200", "x/s", "0/s", "5/day", "-1/s"] {
            assert!(bad.parse::<RateLimit>().is_err(), "{bad}");
        }
        assert!("2/d".parse::<RateLimit>().unwrap_err().contains("200/s"));
    }

    #[test]
    fn a_bucket_allows_its_burst_then_refills_at_the_rate() {
        let limiter = Limiter::new("4/s".parse().unwrap());
        let t0 = Instant::now();
        let (a, b) = ([1; 32], [2; 32]);
        for _ in 0..4 {
            assert!(limiter.admit_at(a, t0).is_ok());
        }
        let wait = limiter.admit_at(a, t0).unwrap_err();
        assert!(wait > Duration::from_millis(200) && wait <= Duration::from_millis(250));
        // Another token has its own bucket.
        assert!(limiter.admit_at(b, t0).is_ok());
        // A quarter second later, one more.
        let later = t0 + Duration::from_millis(251);
        assert!(limiter.admit_at(a, later).is_ok());
        assert!(limiter.admit_at(a, later).is_err());
    }

    #[test]
    fn full_buckets_are_pruned() {
        let limiter = Limiter::new("1/s".parse().unwrap());
        let t0 = Instant::now();
        for i in 0..=PRUNE_ABOVE as u32 {
            let mut key = [0; 32];
            key[..4].copy_from_slice(&i.to_le_bytes());
            let _ = limiter.admit_at(key, t0);
        }
        let _ = limiter.admit_at([9; 32], t0 + Duration::from_secs(2));
        assert!(limiter.buckets.lock().unwrap().len() <= 2);
    }
}
