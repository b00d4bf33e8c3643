//! The runtime's stderr log, written by a thread of its own: a request
//! hands its line to a bounded queue and goes on, so a slow or full stderr
//! pipe (a stalled log collector, a terminal on hold) never stalls request
//! handling. When the queue is full, lines are dropped and counted, and the
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
                let mut stderr = io::stderr();
                for message in lines {
                    match message {
                        Message::Line(line) => {
                            let dropped = PIPE.get().map_or(0, |p| p.dropped.swap(0, Ordering::Relaxed));
                            if dropped > 0 {
                                let _ = writeln!(
                                    stderr,
                                    "agentteam-runtime: {dropped} log line(s) dropped: stderr was not read fast enough"
                                );
                            }
                            let _ = stderr.write_all(&line);
                        }
                        Message::Flush(done) => {
                            let _ = stderr.flush();
                            let _ = done.send(());
                        }
                    }
                }
            })
            .expect("the log thread starts");
        Pipe {
            queue,
            dropped: AtomicU64::new(0),
        }
    })
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
