//! The HTTP/1.1 connection handling of `privlift serve` and `privlift collect`: hyper on a
//! small tokio runtime, one task per connection, the same accept loop, limits and
//! deadlines for both servers; each brings only its handler (a request in, a response out).
//!
//! Why this shape: a connection costs a task, not a thread, so idle or slow clients leave
//! new ones served (a fixed pool of 128 threads let 130 idle connections shut every new
//! client out). hyper parses the requests (no hand-written HTTP/1.1 parser) and keeps
//! connections alive. What hyper leaves to its user is done here:
//!
//! - **Deadlines.** A request head must arrive whole within [`HEAD_TIMEOUT`] of the
//!   connection's opening or of the previous answer (hyper's `header_read_timeout`), which
//!   also ends a kept-alive connection left idle. A head begun but not whole by then gets
//!   the server's [`Limits::slow_head`] answer, if it has one; bodies have the handler's own
//!   deadline.
//! - **Size.** A head over [`MAX_HEAD`] bytes is answered 431 (by hyper).
//! - **Lingering close.** When a connection is done (its client closed, or an answer that
//!   ends it: an error, `Connection: close`, a body left unread), the server sends its FIN
//!   and reads on, dropping what arrives, for at most [`Limits::linger`] and
//!   [`Limits::linger_bytes`]. A client still sending (a body refused before it was read)
//!   so reads the answer instead of a reset connection.

use std::convert::Infallible;
use std::future::Future;
use std::net::TcpListener;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::Semaphore;

use crate::error::CliError;

/// Connections served at once; a further one waits in the listen backlog.
pub const MAX_CONNECTIONS: usize = 4096;
/// A request head must arrive within this (see the module's comment).
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// Largest request head (request line and header fields); a larger one is answered 431.
pub const MAX_HEAD: usize = 16 * 1024;
/// Bytes hyper buffers per connection, each way, at most: what a slow reader of a
/// streamed file holds beside the chunk being read (hyper's default, about 400 KB, made
/// 128 slow readers of a 20 MB file take the server to 79 MB of RSS; with this, 36 MB).
const MAX_BUFFERED: usize = 64 * 1024;
/// Threads of the runtime that runs the connections.
const RUNTIME_THREADS: usize = 2;

/// A response body: whole bytes or a stream (a file), read as hyper writes it.
pub type Body = UnsyncBoxBody<Bytes, std::io::Error>;

/// A body of `bytes`, whole.
pub fn full(bytes: impl Into<Bytes>) -> Body {
    Full::new(bytes.into()).map_err(|never: Infallible| match never {}).boxed_unsync()
}

/// What differs between the two servers' connections.
#[derive(Clone, Copy)]
pub struct Limits {
    /// The raw answer (a whole HTTP/1.1 response) to a request head begun but not whole
    /// within [`HEAD_TIMEOUT`]; `None`: the connection is closed unanswered.
    pub slow_head: Option<&'static [u8]>,
    /// How long a done connection is drained before it is closed, in all.
    pub linger: Duration,
    /// How many bytes a done connection is drained of, at most.
    pub linger_bytes: u64,
}

/// A boxed response future, as hyper's `poll_without_shutdown` needs (`Unpin`).
type Answer = Pin<Box<dyn Future<Output = Result<Response<Body>, Infallible>> + Send>>;

/// Serves `listener` with `handler` until the process ends, on a runtime of its own.
pub fn serve<H, F>(listener: TcpListener, limits: Limits, handler: H) -> Result<(), CliError>
where
    H: Fn(Request<Incoming>) -> F + Send + Sync + 'static,
    F: Future<Output = Response<Body>> + Send + 'static,
{
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(RUNTIME_THREADS)
        .enable_io()
        .enable_time()
        .build()
        .map_err(|e| CliError::io("cannot start the HTTP runtime", e))?;
    listener.set_nonblocking(true).map_err(|e| CliError::io("cannot configure the listener", e))?;
    runtime.block_on(accept(listener, limits, Arc::new(handler)))
}

async fn accept<H, F>(listener: TcpListener, limits: Limits, handler: Arc<H>) -> Result<(), CliError>
where
    H: Fn(Request<Incoming>) -> F + Send + Sync + 'static,
    F: Future<Output = Response<Body>> + Send + 'static,
{
    let listener =
        tokio::net::TcpListener::from_std(listener).map_err(|e| CliError::io("cannot listen for connections", e))?;
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    loop {
        let Ok(slot) = Arc::clone(&slots).acquire_owned().await else { return Ok(()) };
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of file descriptors or a connection reset before it was accepted:
                // the server keeps serving the others.
                eprintln!("privlift: accept: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let handler = Arc::clone(&handler);
        tokio::spawn(async move {
            connection(stream, limits, handler).await;
            drop(slot);
        });
    }
}

/// Serves one connection until it is done, then closes it (see the module's comment).
async fn connection<H, F>(stream: TcpStream, limits: Limits, handler: Arc<H>)
where
    H: Fn(Request<Incoming>) -> F + Send + Sync + 'static,
    F: Future<Output = Response<Body>> + Send + 'static,
{
    let service = service_fn(move |request| -> Answer {
        let answer = (*handler)(request);
        Box::pin(async move { Ok(answer.await) })
    });
    let mut conn = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(HEAD_TIMEOUT)
        .max_header_size(MAX_HEAD)
        .max_buf_size(MAX_BUFFERED)
        .serve_connection(TokioIo::new(stream), service);
    // A connection that fails (a reset, a malformed request) concerns that client only.
    let done = std::future::poll_fn(|cx| conn.poll_without_shutdown(cx)).await;
    let parts = conn.into_parts();
    let mut stream = parts.io.into_inner();
    let slow_head = done.as_ref().is_err_and(|e| e.is_timeout()) && !parts.read_buf.is_empty();
    if let (true, Some(answer)) = (slow_head, limits.slow_head) {
        let _ = stream.write_all(answer).await;
    }
    linger(stream, limits).await;
}

/// Sends FIN, then drops what the client still sends, within the limits (module comment).
async fn linger(mut stream: TcpStream, limits: Limits) {
    let _ = stream.shutdown().await;
    let deadline = tokio::time::Instant::now() + limits.linger;
    let (mut drained, mut chunk) = (0u64, [0u8; 8192]);
    while drained < limits.linger_bytes {
        match tokio::time::timeout_at(deadline, stream.read(&mut chunk)).await {
            Ok(Ok(n)) if n > 0 => drained += n as u64,
            _ => break, // the client closed, an error, or the deadline passed
        }
    }
}
