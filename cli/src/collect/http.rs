//! The collector's HTTP/1.1 front: the connection handling of [`crate::http`] (hyper on
//! tokio, one task per connection, shared with `privlift serve`), and the database work
//! on the collector's own worker threads.
//!
//! The stores stay synchronous, one database connection per worker thread, outside the
//! runtime: a request is read whole (its body bounded by [`MAX_BODY`]) and routed
//! ([`routes::route`]); what needs no database (a document, a preflight, a refusal) is
//! answered on the spot, the rest is handed to a worker through the [`Queue`], and the
//! worker's [`HttpResponse`] is written back. The routes never see a socket.
//!
//! Memory is bounded at each stage. Bodies being read, or waiting for their answer, share
//! one budget of [`MAX_READING_BYTES`]: a body takes its share by its declared length
//! before a byte of it is read (else as it grows), and gives it back when its client has
//! the answer or has gone away. A body beyond the budget is not read: 503 `busy` with
//! `Retry-After`, nothing of it stored, so the client retries with the same report ids.
//! (Without it, 200 connections each holding back the last byte of a 4 MiB body took the
//! collector from 7.7 MB to 933 MB.) A body over [`MAX_BODY`] is not read either: its 413
//! is sent at once and the connection closes after a lingering drain ([`crate::http`]), so
//! a client still sending reads the 413, not a broken pipe.
//!
//! The work queue is bounded too, and a request that finds it full is answered at once
//! with 503 `busy` rather than waiting: a client posting large batches faster than the
//! database stores them, or closing each connection without reading the answer (which
//! frees its body's share of the budget while the body waits), holds at most
//! [`MAX_QUEUED_WRITES`] batches and [`MAX_QUEUED_BYTES`] of bodies, not memory and latency
//! without limit. Reads (estimates) wait in a queue of their own and a worker alternates
//! between the two when both wait, so a read waits for at most one write per worker,
//! however many writes are queued; a document (`GET /v1/mechanisms/ID`) waits for none. A
//! job whose client has gone away before a worker took it is dropped unanswered: it was
//! never acknowledged.

use std::collections::VecDeque;
use std::net::TcpListener;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use http_body_util::BodyExt;
use hyper::body::{Body as _, Bytes, Incoming};
use hyper::header::HeaderValue;
use hyper::{Request, Response};
use tokio::sync::{oneshot, OwnedSemaphorePermit, Semaphore};

use super::catalogue::Catalogue;
use super::failure::ApiError;
use super::message::{HttpRequest, HttpResponse, Method};
use super::routes::{self, Routed, MAX_BODY};
use super::store::Store;
use crate::error::CliError;
use crate::http::{full, Body, Limits};

/// A request's body must arrive within this (its head has [`crate::http::HEAD_TIMEOUT`]; a
/// head that does not is closed without an answer).
const BODY_TIMEOUT: Duration = Duration::from_secs(30);
/// Bytes of the bodies being read or waiting for their answer, at most (32 of the
/// largest): with the queue's [`MAX_QUEUED_BYTES`], what request bodies can hold.
const MAX_READING_BYTES: usize = 128 * 1024 * 1024;
/// The collector's connections: a slow head is closed unanswered; a connection is drained
/// after its last answer for up to 10 s and 64 MiB, enough for a client to finish sending
/// a body refused unread (413, 503) before it reads the answer.
const LIMITS: Limits = Limits { slow_head: None, linger: Duration::from_secs(10), linger_bytes: 64 << 20 };
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
    let budget = Arc::new(Semaphore::new(MAX_READING_BYTES));
    crate::http::serve(listener, LIMITS, move |r| {
        answer(r, Arc::clone(&queue), Arc::clone(&catalogue), Arc::clone(&budget))
    })
}

/// Reads one request, answers it or has a worker answer it, and writes the answer.
async fn answer(
    request: Request<Incoming>,
    queue: Arc<Queue>,
    catalogue: Arc<Catalogue>,
    budget: Arc<Semaphore>,
) -> Response<Body> {
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
    // Held until the answer is written: the bytes of this body count against the budget
    // from its first byte read until its client has its answer or has gone away.
    let (body, _held) = match tokio::time::timeout(BODY_TIMEOUT, read_body(body, &budget)).await {
        Ok(Ok(Read::Whole(body, held))) => (Ok(body), Some(held)),
        Ok(Ok(Read::TooLarge)) => (Err(()), None),
        // Nothing of it is kept; the client sends it again later (the same report ids).
        Ok(Ok(Read::Busy)) => return closing(busy()),
        // A body that stalls or breaks off: nothing of it is stored, and the client sends
        // it again (the same report ids: counted once).
        _ => return plain(408, "http", "the request body did not arrive"),
    };
    let unread = body.is_err();
    let request = HttpRequest {
        method,
        path: parts.uri.path().to_string(),
        query: parts.uri.query().unwrap_or("").to_string(),
        if_none_match,
        body,
    };
    let work = match routes::route(request, &catalogue) {
        // A body left unread ends the connection after the answer (and its drain).
        Routed::Answered(r) if unread => return closing(to_hyper(r)),
        Routed::Answered(r) => return to_hyper(r),
        work => work,
    };
    let (reply, answer) = oneshot::channel();
    if queue.push(Job { work, reply }).is_err() {
        return busy();
    }
    match answer.await {
        Ok(r) => to_hyper(r),
        Err(_) => plain(500, "http", "the worker failed"),
    }
}

/// How a request body was read.
enum Read {
    /// Whole, with its share of the budget.
    Whole(Vec<u8>, OwnedSemaphorePermit),
    /// Larger than [`MAX_BODY`]: read no further.
    TooLarge,
    /// The budget has no room for it: read no further.
    Busy,
}

/// Reads a body within [`MAX_BODY`] and the `budget` of bodies in flight: by its declared
/// length before a byte of it is read, else as it grows (the bytes its buffer reserves). An
/// error when the connection breaks.
async fn read_body(mut body: Incoming, budget: &Arc<Semaphore>) -> Result<Read, hyper::Error> {
    let share = |bytes: usize| Arc::clone(budget).try_acquire_many_owned(u32::try_from(bytes).unwrap_or(u32::MAX));
    let declared = body.size_hint().exact();
    if declared.is_some_and(|n| n > MAX_BODY as u64) {
        return Ok(Read::TooLarge);
    }
    let first = declared.map_or(0, |n| n as usize); // at most MAX_BODY
    let Ok(mut held) = share(first) else { return Ok(Read::Busy) };
    let mut kept = Vec::with_capacity(first);
    while let Some(frame) = body.frame().await {
        let Ok(data) = frame?.into_data() else { continue };
        let needed = kept.len() + data.len();
        if needed > MAX_BODY {
            return Ok(Read::TooLarge);
        }
        if needed > kept.capacity() {
            let grown = needed.max(2 * kept.capacity()).min(MAX_BODY);
            let Ok(more) = share(grown - kept.capacity()) else { return Ok(Read::Busy) };
            held.merge(more);
            kept.reserve_exact(grown - kept.len());
        }
        kept.extend_from_slice(&data);
    }
    Ok(Read::Whole(kept, held))
}

/// 503 `busy` with `Retry-After`: nothing of the request is kept.
fn busy() -> Response<Body> {
    let busy = plain(503, "busy", "the collector has too much work waiting; retry later");
    with_header(busy, hyper::header::RETRY_AFTER, RETRY_AFTER_SECS.into())
}

/// `r` with `Connection: close`: the connection ends after it (its body was left unread).
fn closing(r: Response<Body>) -> Response<Body> {
    with_header(r, hyper::header::CONNECTION, hyper::header::HeaderValue::from_static("close"))
}

/// An error the front answers itself (`{"code", "message"}`), with CORS as every answer.
fn plain(status: u16, code: &'static str, message: &str) -> Response<Body> {
    to_hyper(routes::error_response(&ApiError::new(status, code, message.into())))
}

fn with_header(mut r: Response<Body>, name: hyper::header::HeaderName, value: HeaderValue) -> Response<Body> {
    r.headers_mut().insert(name, value);
    r
}

fn to_hyper(r: HttpResponse) -> Response<Body> {
    let mut out = Response::builder().status(r.status);
    for (name, value) in r.headers {
        out = out.header(name, value);
    }
    out.body(full(r.body)).unwrap_or_else(|_| {
        let mut e = Response::new(full(Bytes::new()));
        *e.status_mut() = hyper::StatusCode::INTERNAL_SERVER_ERROR;
        e
    })
}
