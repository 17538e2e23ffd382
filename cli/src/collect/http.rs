//! The collector's HTTP/1.1 front: hyper on a small tokio runtime, one task per
//! connection, and the database work on the collector's own worker threads.
//!
//! Why this shape: a connection a browser keeps alive costs a task here, not a thread, so
//! any number of idle keep-alive clients leaves new ones served. (tiny_http, used before,
//! kept a thread per open connection; with 50 clients connecting at once, 26 waited until
//! another connection closed.) The stores stay synchronous, one database connection per
//! worker thread, outside the runtime: a request is read whole (its body bounded by
//! [`MAX_BODY`]), handed to a worker as an [`HttpRequest`], and the worker's
//! [`HttpResponse`] is written back. [`super::handle`] never sees a socket.

use std::convert::Infallible;
use std::net::TcpListener;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::sync::{oneshot, Semaphore};

use super::{Catalogue, Store, MAX_BODY};
use crate::CliError;

/// Connections served at once; a further one waits in the listen backlog.
const MAX_CONNECTIONS: usize = 4096;
/// A request's head must arrive within this.
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// A request's body must arrive within this.
const BODY_TIMEOUT: Duration = Duration::from_secs(30);
/// A body above [`MAX_BODY`] is read on (and dropped) up to this many bytes before the 413,
/// so that a client still sending it reads the answer rather than a reset connection.
const MAX_DRAINED: usize = 4 * MAX_BODY;

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
    request: HttpRequest,
    reply: oneshot::Sender<HttpResponse>,
}

/// Serves `listener` until the process ends: one worker thread per store, each with its
/// own database connection, answering the requests the connections' tasks read.
pub fn serve(listener: TcpListener, stores: Vec<Box<dyn Store>>, catalogue: Arc<Catalogue>) -> Result<(), CliError> {
    let (jobs, queue) = mpsc::channel::<Job>();
    let queue = Arc::new(Mutex::new(queue));
    for mut store in stores {
        let (queue, catalogue) = (Arc::clone(&queue), Arc::clone(&catalogue));
        std::thread::spawn(move || loop {
            // The lock is held only to take one job; a poisoned lock still hands them out.
            let job = queue.lock().unwrap_or_else(|p| p.into_inner()).recv();
            let Ok(job) = job else { return };
            // A client that went away concerns that client only.
            let _ = job.reply.send(super::handle(job.request, &catalogue, store.as_mut()));
        });
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_io()
        .enable_time()
        .build()
        .map_err(|e| CliError::io("cannot start the HTTP runtime", e))?;
    listener.set_nonblocking(true).map_err(|e| CliError::io("cannot configure the listener", e))?;
    runtime.block_on(accept(listener, jobs))
}

async fn accept(listener: TcpListener, jobs: mpsc::Sender<Job>) -> Result<(), CliError> {
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
        let jobs = jobs.clone();
        tokio::spawn(async move {
            let service = service_fn(move |r| answer(r, jobs.clone()));
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

/// Reads one request, has a worker answer it, and writes the answer.
async fn answer(request: Request<Incoming>, jobs: mpsc::Sender<Job>) -> Result<Response<Full<Bytes>>, Infallible> {
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
        // A body that stalls or breaks off: no answer is owed (the client retries).
        _ => return Ok(plain(408, "the request body did not arrive")),
    };
    let request = HttpRequest {
        method,
        path: parts.uri.path().to_string(),
        query: parts.uri.query().unwrap_or("").to_string(),
        if_none_match,
        body,
    };
    let (reply, answer) = oneshot::channel();
    if jobs.send(Job { request, reply }).is_err() {
        return Ok(plain(503, "the collector is shutting down"));
    }
    Ok(match answer.await {
        Ok(r) => to_hyper(r),
        Err(_) => plain(500, "the worker failed"),
    })
}

/// An error the front answers itself (`{"code": "http", "message"}`), with CORS as every answer.
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

fn plain(status: u16, message: &str) -> Response<Full<Bytes>> {
    to_hyper(super::error_response(&super::ApiError::new(status, "http", message.into())))
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
