//! A request and its response as the routes read and write them: no socket, no
//! hyper type.

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
    /// The body, or `Err(())` when it was larger than [`MAX_BODY`](super::routes::MAX_BODY).
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
