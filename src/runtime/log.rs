//! The runtime's stderr log, written by a thread of its own: a request
//! hands its line to a bounded queue and goes on, so a slow or full stderr
//! pipe (a stalled log collector, a terminal on hold) never stalls request
//! handling. The thread writes what gathered in one call, then pauses, so a
//! busy server makes one write a pause rather than one a request. When the queue is full, lines are dropped and counted, and the
//! count is written as soon as stderr takes lines again.

use std::io::{self, Write};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, SyncSender, TrySendError};
use std::time::{Duration, Instant};

/// Lines waiting for stderr at most (a few MB of typical lines).
const QUEUE: usize = 16 * 1024;

enum Message {
    Line(Vec<u8>),
    /// Answered once every line before it is written.
    Flush(mpsc::Sender<()>),
}

struct Pipe {
    queue: SyncSender<Message>,
    dropped: AtomicU64,
}

static PIPE: OnceLock<Pipe> = OnceLock::new();

fn pipe() -> &'static Pipe {
    PIPE.get_or_init(|| {
        let (queue, lines) = mpsc::sync_channel::<Message>(QUEUE);
        std::thread::Builder::new()
            .name("log".into())
            .spawn(move || {
                let dropped = || {
                    PIPE.get()
                        .map_or(0, |p| p.dropped.swap(0, Ordering::Relaxed))
                };
                write_lines(&lines, io::stderr(), dropped);
            })
            .expect("the log thread starts");
        Pipe {
            queue,
            dropped: AtomicU64::new(0),
        }
    })
}

/// How long the log thread lets lines gather after each write. A line sent
/// while it sleeps costs its request no system call (no receiver to wake),
/// and the lines that gathered reach stderr in one `write`: under load, one
/// wake-up and one write per pause instead of one of each per request.
const GATHER: Duration = Duration::from_millis(2);

/// At most this much is written at once.
const BATCH_BYTES: usize = 64 * 1024;

/// The log thread: waits for a line, takes every line queued behind it,
/// writes them to `out` in one call (after a note of the lines `dropped`
/// says were lost since the last), answers the flushes among them, then
/// pauses. Returns when every sender is gone.
fn write_lines(lines: &mpsc::Receiver<Message>, mut out: impl Write, dropped: impl Fn() -> u64) {
    let mut batch = Vec::with_capacity(BATCH_BYTES);
    let mut flushed = Vec::new();
    while let Ok(first) = lines.recv() {
        let mut next = Some(first);
        while let Some(message) = next.take() {
            match message {
                Message::Line(line) => batch.extend_from_slice(&line),
                Message::Flush(done) => flushed.push(done),
            }
            if batch.len() < BATCH_BYTES {
                next = lines.try_recv().ok();
            }
        }
        let dropped = dropped();
        if dropped > 0 {
            let note = format!(
                "agentteam-runtime: {dropped} log line(s) dropped: stderr was not read fast enough\n"
            );
            let _ = out.write_all(note.as_bytes());
        }
        let _ = out.write_all(&batch);
        batch.clear();
        let _ = out.flush();
        for done in flushed.drain(..) {
            let _ = done.send(());
        }
        std::thread::sleep(GATHER);
    }
}

/// The `tracing_subscriber` writer: each event is one `write` of one line.
#[derive(Clone, Copy, Default)]
pub struct NonBlockingStderr;

impl Write for NonBlockingStderr {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let pipe = pipe();
        if let Err(TrySendError::Full(_)) = pipe.queue.try_send(Message::Line(buf.to_vec())) {
            pipe.dropped.fetch_add(1, Ordering::Relaxed);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for NonBlockingStderr {
    type Writer = NonBlockingStderr;

    fn make_writer(&'a self) -> Self::Writer {
        NonBlockingStderr
    }
}

/// Waits at most `limit` for the queued lines to reach stderr (at exit, so
/// the last lines are not lost with the process).
pub fn flush(limit: Duration) {
    let Some(pipe) = PIPE.get() else { return };
    let deadline = Instant::now() + limit;
    let (done, flushed) = mpsc::channel();
    let mut message = Message::Flush(done);
    loop {
        match pipe.queue.try_send(message) {
            Ok(()) => break,
            Err(TrySendError::Full(back)) if Instant::now() < deadline => {
                message = back;
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(_) => return,
        }
    }
    let _ = flushed.recv_timeout(deadline.saturating_duration_since(Instant::now()));
}

/// At most this many lines of one sampled kind are logged each second; the
/// rest are counted, and the count is logged with the next line let through.
pub const SAMPLED_LINES_PER_SECOND: u32 = 10;

/// The log lines of refused requests and connections, process-wide.
pub static REFUSALS: Sampler = Sampler::new();

/// Logs one refused request or connection (`tracing::info!` of its
/// arguments), unless [`REFUSALS`] leaves it out; notes how many it left
/// out since the last one.
macro_rules! log_refusal {
    ($($field:tt)*) => {
        match $crate::runtime::log::REFUSALS.admit() {
            None => {}
            Some(0) => tracing::info!($($field)*),
            Some(suppressed) => {
                tracing::info!(
                    suppressed,
                    "refused requests not logged (at most {} a second are)",
                    $crate::runtime::log::SAMPLED_LINES_PER_SECOND
                );
                tracing::info!($($field)*)
            }
        }
    };
}
pub(crate) use log_refusal;

/// Samples the log lines of one kind that can come by the thousand a
/// second: refused requests (4xx, connections over the cap), which a client
/// sending bad requests in a loop would make megabytes of, and the store's
/// faults, which every request meets alike while the database is down.
pub struct Sampler {
    state: std::sync::Mutex<Window>,
}

struct Window {
    started: Option<Instant>,
    logged: u32,
    suppressed: u64,
}

impl Sampler {
    pub const fn new() -> Sampler {
        Sampler {
            state: std::sync::Mutex::new(Window {
                started: None,
                logged: 0,
                suppressed: 0,
            }),
        }
    }

    /// `Some(n)`: log this one, noting the `n` left out before it; `None`:
    /// leave it out.
    pub fn admit(&self) -> Option<u64> {
        self.admit_at(Instant::now())
    }

    fn admit_at(&self, now: Instant) -> Option<u64> {
        let mut w = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let fresh = w
            .started
            .is_none_or(|s| now.saturating_duration_since(s) >= Duration::from_secs(1));
        if fresh {
            w.started = Some(now);
            w.logged = 0;
        }
        if w.logged < SAMPLED_LINES_PER_SECOND {
            w.logged += 1;
            Some(std::mem::take(&mut w.suppressed))
        } else {
            w.suppressed += 1;
            None
        }
    }
}

impl Default for Sampler {
    fn default() -> Self {
        Sampler::new()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    #[test]
    fn the_sampler_lets_ten_a_second_through_and_counts_the_rest() {
        let sampler = Sampler::new();
        let t0 = Instant::now();
        let admitted = (0..1000).filter(|_| sampler.admit_at(t0).is_some()).count();
        assert_eq!(admitted, SAMPLED_LINES_PER_SECOND as usize);
        assert_eq!(
            sampler.admit_at(t0 + Duration::from_secs(1)),
            Some(1000 - u64::from(SAMPLED_LINES_PER_SECOND))
        );
        assert_eq!(sampler.admit_at(t0 + Duration::from_secs(1)), Some(0));
    }

    /// Records each `write` call it gets.
    #[derive(Clone, Default)]
    struct Calls(Arc<Mutex<Vec<Vec<u8>>>>);

    impl Write for Calls {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().push(buf.to_vec());
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn queued_lines_reach_the_writer_in_one_write_before_their_flush_is_answered() {
        let (queue, lines) = mpsc::sync_channel(QUEUE);
        for n in 0..100 {
            queue
                .send(Message::Line(format!("line {n}\n").into_bytes()))
                .unwrap();
        }
        let (done, flushed) = mpsc::channel();
        queue.send(Message::Flush(done)).unwrap();
        let calls = Calls::default();
        let writer = calls.clone();
        let thread = std::thread::spawn(move || write_lines(&lines, writer, || 3));
        flushed.recv_timeout(Duration::from_secs(10)).unwrap();
        {
            let calls = calls.0.lock().unwrap();
            let expected: String = (0..100).map(|n| format!("line {n}\n")).collect();
            assert_eq!(
                calls.len(),
                2,
                "the drop note, then every line in one write"
            );
            assert_eq!(
                String::from_utf8_lossy(&calls[0]),
                "agentteam-runtime: 3 log line(s) dropped: stderr was not read fast enough\n"
            );
            assert_eq!(String::from_utf8_lossy(&calls[1]), expected);
        }
        drop(queue);
        thread.join().unwrap();
    }
}
