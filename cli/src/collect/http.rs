//! The collector's HTTP/1.1 front: hyper on a small tokio runtime, one task per
//! connection, and the database work on the collector's own worker threads.
//!
//! Why this shape: a connection a browser keeps alive costs a task here, not a thread, so
//! any number of idle keep-alive clients leaves new ones served. (tiny_http, used before,
//! kept a thread per open connection; with 50 clients connecting at once, 26 waited until
//! another connection closed.) The stores stay synchronous, one database connection per
//! worker thread, outside the runtime: a request is read whole (its body bounded by
//! [`MAX_BODY`]) and routed ([`super::route`]); what needs no database (a document, a
//! preflight, a refusal) is answered on the spot, the rest is handed to a worker through
//! the [`Queue`], and the worker's [`HttpResponse`] is written back. The routes never see
//! a socket.
//!
//! The queue is bounded, and a request that finds it full is answered at once with 503
//! `busy` and `Retry-After` (nothing of it stored, so the client retries with the same
//! report ids) rather than waiting: a client posting large batches faster than the
//! database stores them, or closing each connection without reading the answer (which
//! frees its connection slot while its body waits), holds at most [`MAX_QUEUED_WRITES`]
//! batches and [`MAX_QUEUED_BYTES`] of bodies, not memory and latency without limit.
//! Reads (estimates) wait in a queue of their own and a worker alternates between the two
//! when both wait, so a read waits for at most one write per worker, however many writes
//! are queued; a document (`GET /v1/mechanisms/ID`) waits for none. A job whose client has
//! gone away before a worker took it is dropped unanswered: it was never acknowledged.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::net::TcpListener;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::sync::{oneshot, Semaphore};

use super::{Catalogue, Routed, Store, MAX_BODY};
use crate::CliError;

/// Connections served at once; a further one waits in the listen backlog.
const MAX_CONNECTIONS: usize = 4096;
/// A request's head must arrive within this (of the connection's opening or of the previous
/// answer), else the connection is closed without an answer: hyper's `header_read_timeout`,
/// which also ends a kept-alive connection left idle this long.
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// A request's body must arrive within this.
const BODY_TIMEOUT: Duration = Duration::from_secs(30);
/// A body above [`MAX_BODY`] is read on (and dropped) up to this many bytes before the 413,
/// so that a client still sending it reads the answer rather than a reset connection.
const MAX_DRAINED: usize = 4 * MAX_BODY;
/// Batches waiting for a worker, at most: each is one commit, so a new batch waits for at
/// most 256 commits of the database (a few seconds on SQLite, whose writers take turns).
const MAX_QUEUED_WRITES: usize = 256;
/// Bytes of the batches waiting for a worker, at most (16 of the largest bodies; about 40
/// batches of 10,000 reports). Besides these, each worker holds the one it is storing.
const MAX_QUEUED_BYTES: usize = 64 * 1024 * 1024;
/// Estimates waiting for a worker, at most.
const MAX_QUEUED_READS: usize = 256;
/// The `Retry-After` of a 503 `busy`, in seconds.
const RETRY_AFTER_SECS: u32 = 1;

/// The methods the routes know; any other is `Other`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Head,
    Post,
    Options,
    Other,
}

/// A request as the routes read it.
#[derive(Debug)]
pub struct HttpRequest {
    pub method: Method,
    /// The path, without the query.
    pub path: String,
    /// The query, without `?` (empty when none).
    pub query: String,
    /// `If-None-Match` values, comma-separated lists joined.
    pub if_none_match: Vec<String>,
    /// The body, or `Err(())` when it was larger than [`MAX_BODY`].
    pub body: Result<Vec<u8>, ()>,
}

/// A response: status, headers and body.
#[derive(Debug)]
pub struct HttpResponse {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
}

impl HttpResponse {
    pub fn new(status: u16, body: Vec<u8>) -> Self {
        HttpResponse { status, headers: Vec::new(), body }
    }
    pub fn header(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }
}

/// One request for a worker, and where its answer goes.
struct Job {
    work: Routed,
    reply: oneshot::Sender<HttpResponse>,
}

/// The jobs waiting for a worker: reads and writes apart, each queue bounded (see the
/// module's comment), first in first out.
#[derive(Default)]
struct Queue {
    waiting: Mutex<Waiting>,
    ready: Condvar,
}

#[derive(Default)]
struct Waiting {
    reads: VecDeque<Job>,
    writes: VecDeque<Job>,
    /// The bytes of `writes`.
    write_bytes: usize,
}

impl Queue {
    /// The queues, also after a panic elsewhere (no code path leaves them inconsistent).
    fn lock(&self) -> MutexGuard<'_, Waiting> {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues `job`, or gives it back when its queue is full.
    fn push(&self, job: Job) -> Result<(), Job> {
        let mut w = self.lock();
        if job.work.is_write() {
            let bytes = job.work.bytes();
            // An empty queue takes any body (it is at most MAX_BODY).
            let room = w.writes.is_empty()
                || (w.writes.len() < MAX_QUEUED_WRITES && w.write_bytes.saturating_add(bytes) <= MAX_QUEUED_BYTES);
            if !room {
                return Err(job);
            }
            w.write_bytes += bytes;
            w.writes.push_back(job);
        } else {
            if w.reads.len() >= MAX_QUEUED_READS {
                return Err(job);
            }
            w.reads.push_back(job);
        }
        drop(w);
        self.ready.notify_one();
        Ok(())
    }

    /// The next job, waiting for one: the oldest read, or the oldest write when no read
    /// waits or when this worker's previous job was a read and a write waits too.
    fn take(&self, previous_was_read: bool) -> Job {
        let mut w = self.lock();
        loop {
            let read_first = !previous_was_read || w.writes.is_empty();
            let job = if read_first { w.reads.pop_front() } else { None };
            if let Some(job) = job.or_else(|| w.writes.pop_front()).or_else(|| w.reads.pop_front()) {
                if job.work.is_write() {
                    w.write_bytes = w.write_bytes.saturating_sub(job.work.bytes());
                }
                return job;
            }
            w = self.ready.wait(w).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// Serves `listener` until the process ends: one worker thread per store, each with its
/// own database connection, answering the requests the connections' tasks queue.
pub fn serve(listener: TcpListener, stores: Vec<Box<dyn Store>>, catalogue: Arc<Catalogue>) -> Result<(), CliError> {
    let queue = Arc::new(Queue::default());
    for mut store in stores {
        let (queue, catalogue) = (Arc::clone(&queue), Arc::clone(&catalogue));
        std::thread::spawn(move || {
            let mut previous_was_read = false;
            loop {
                let job = queue.take(previous_was_read);
                previous_was_read = !job.work.is_write();
                // Its client went away unanswered: nothing was acknowledged, nothing to do.
                if job.reply.is_closed() {
                    continue;
                }
                // A client that goes away meanwhile concerns that client only (a batch
                // stored but not acknowledged is sent again and counted once).
                let _ = job.reply.send(job.work.run(&catalogue, store.as_mut()));
            }
        });
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_io()
        .enable_time()
        .build()
        .map_err(|e| CliError::io("cannot start the HTTP runtime", e))?;
    listener.set_nonblocking(true).map_err(|e| CliError::io("cannot configure the listener", e))?;
    runtime.block_on(accept(listener, queue, catalogue))
}

async fn accept(listener: TcpListener, queue: Arc<Queue>, catalogue: Arc<Catalogue>) -> Result<(), CliError> {
    let listener =
        tokio::net::TcpListener::from_std(listener).map_err(|e| CliError::io("cannot listen for connections", e))?;
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    loop {
        let Ok(slot) = Arc::clone(&slots).acquire_owned().await else { return Ok(()) };
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of file descriptors or a connection reset before it was accepted:
                // the collector keeps serving the others.
                eprintln!("privlift: collect: accept: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let (queue, catalogue) = (Arc::clone(&queue), Arc::clone(&catalogue));
        tokio::spawn(async move {
            let service = service_fn(move |r| answer(r, Arc::clone(&queue), Arc::clone(&catalogue)));
            let connection = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .serve_connection(TokioIo::new(stream), service);
            // A connection that fails (a reset, a malformed request) concerns that client.
            let _ = connection.await;
            drop(slot);
        });
    }
}

/// Reads one request, answers it or has a worker answer it, and writes the answer.
async fn answer(
    request: Request<Incoming>,
    queue: Arc<Queue>,
    catalogue: Arc<Catalogue>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let (parts, body) = request.into_parts();
    let method = match parts.method {
        hyper::Method::GET => Method::Get,
        hyper::Method::HEAD => Method::Head,
        hyper::Method::POST => Method::Post,
        hyper::Method::OPTIONS => Method::Options,
        _ => Method::Other,
    };
    let if_none_match = parts
        .headers
        .get_all(hyper::header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| t.trim().to_string())
        .collect();
    let body = match tokio::time::timeout(BODY_TIMEOUT, read_body(body)).await {
        Ok(Ok(b)) => b,
        // A body that stalls or breaks off: nothing of it is stored, and the client sends
        // it again (the same report ids: counted once).
        _ => return Ok(plain(408, "http", "the request body did not arrive")),
    };
    let request = HttpRequest {
        method,
        path: parts.uri.path().to_string(),
        query: parts.uri.query().unwrap_or("").to_string(),
        if_none_match,
        body,
    };
    let work = match super::route(request, &catalogue) {
        Routed::Answered(r) => return Ok(to_hyper(r)),
        work => work,
    };
    let (reply, answer) = oneshot::channel();
    if queue.push(Job { work, reply }).is_err() {
        let busy = plain(503, "busy", "the collector has too much work waiting; retry later");
        return Ok(with_header(busy, hyper::header::RETRY_AFTER, RETRY_AFTER_SECS));
    }
    Ok(match answer.await {
        Ok(r) => to_hyper(r),
        Err(_) => plain(500, "http", "the worker failed"),
    })
}

/// The body, whole, or `Err(())` when it is larger than [`MAX_BODY`]; an error when the
/// connection breaks or a too-large body goes on past [`MAX_DRAINED`].
async fn read_body(mut body: Incoming) -> Result<Result<Vec<u8>, ()>, hyper::Error> {
    let (mut kept, mut seen) = (Vec::new(), 0usize);
    while let Some(frame) = body.frame().await {
        let Ok(data) = frame?.into_data() else { continue };
        seen = seen.saturating_add(data.len());
        if seen <= MAX_BODY {
            kept.extend_from_slice(&data);
        } else if seen > MAX_DRAINED {
            break;
        }
    }
    Ok(if seen <= MAX_BODY { Ok(kept) } else { Err(()) })
}

/// An error the front answers itself (`{"code", "message"}`), with CORS as every answer.
fn plain(status: u16, code: &'static str, message: &str) -> Response<Full<Bytes>> {
    to_hyper(super::error_response(&super::ApiError::new(status, code, message.into())))
}

fn with_header(mut r: Response<Full<Bytes>>, name: hyper::header::HeaderName, value: u32) -> Response<Full<Bytes>> {
    r.headers_mut().insert(name, hyper::header::HeaderValue::from(value));
    r
}

fn to_hyper(r: HttpResponse) -> Response<Full<Bytes>> {
    let mut out = Response::builder().status(r.status);
    for (name, value) in r.headers {
        out = out.header(name, value);
    }
    out.body(Full::new(Bytes::from(r.body))).unwrap_or_else(|_| {
        let mut e = Response::new(Full::new(Bytes::new()));
        *e.status_mut() = hyper::StatusCode::INTERNAL_SERVER_ERROR;
        e
    })
}
