//! A minimal HTTP/1.1 client for the servers the CLI starts (`serve`, `collect`): one
//! request per connection, read until the server closes.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::Value;

pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    /// The body, de-chunked if it came with `Transfer-Encoding: chunked`.
    pub body: Vec<u8>,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&self.body)))
    }
    /// Asserts `status` (showing the body when it differs) and returns the response.
    #[track_caller]
    pub fn expect(self, status: u16) -> Self {
        assert_eq!(self.status, status, "{}", String::from_utf8_lossy(&self.body));
        self
    }
    /// Asserts an error answer with `status` and returns its JSON `code`.
    pub fn code(&self, status: u16) -> String {
        assert_eq!(self.status, status, "{}", String::from_utf8_lossy(&self.body));
        self.json()["code"].as_str().unwrap().to_string()
    }
}

/// Sends `raw` (a whole request) and reads the response until the connection closes. An
/// I/O failure or a connection closed before a complete head is an error (a server that
/// went away); a malformed head is a test failure.
pub fn exchange(addr: &str, raw: &[u8]) -> std::io::Result<Response> {
    let mut s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(Duration::from_secs(30)))?;
    s.write_all(raw)?;
    let mut buf = Vec::new();
    s.read_to_end(&mut buf)?;
    let end = buf
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "no complete response head"))?;
    let head = std::str::from_utf8(&buf[..end]).unwrap();
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers: Vec<(String, String)> = lines
        .map(|l| {
            let (k, v) = l.split_once(':').unwrap();
            (k.trim().to_string(), v.trim().to_string())
        })
        .collect();
    let chunked = headers.iter().any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    let body = if chunked { dechunk(&buf[end + 4..]) } else { buf[end + 4..].to_vec() };
    Ok(Response { status, headers, body })
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let eol = b.windows(2).position(|w| w == b"\r\n").unwrap();
        let len = usize::from_str_radix(std::str::from_utf8(&b[..eol]).unwrap().trim(), 16).unwrap();
        if len == 0 {
            return out;
        }
        out.extend_from_slice(&b[eol + 2..eol + 2 + len]);
        b = &b[eol + 4 + len..];
    }
}

/// A slow client: sends `start` (the beginning of a request head) on a new connection to
/// `addr`, then one more header line a second, never the end of the head, and reads what
/// comes until the server closes the connection or 16 s have passed. Returns what was
/// read, how the connection ended (`None`: still open; else `Ok(())` for the server's FIN
/// or the read error) and when.
pub fn dribble_head(addr: &str, start: &[u8]) -> (Vec<u8>, Option<std::io::Result<()>>, Duration) {
    use std::io::ErrorKind::{Interrupted, TimedOut, WouldBlock};
    use std::time::Instant;
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_millis(100))).unwrap();
    let t0 = Instant::now();
    let end = |got, how| (got, how, t0.elapsed());
    let (mut got, mut buf, mut sent) = (Vec::new(), [0u8; 4096], 0u32);
    while t0.elapsed() < Duration::from_secs(16) {
        if t0.elapsed() >= Duration::from_secs(sent.into()) {
            // Errors ignored: the server may have closed.
            let _ =
                if sent == 0 { s.write_all(start) } else { s.write_all(format!("X-Slow-{sent}: 1\r\n").as_bytes()) };
            sent += 1;
        }
        match s.read(&mut buf) {
            Ok(0) => return end(got, Some(Ok(()))),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if matches!(e.kind(), WouldBlock | TimedOut | Interrupted) => {}
            Err(e) => return end(got, Some(Err(e))),
        }
    }
    end(got, None)
}

/// A `/proc/PID/status` figure of a process, in KiB (`VmRSS`: resident now, `VmHWM`: its
/// peak); `None` off Linux.
pub fn vm_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(field) && l[field.len()..].starts_with(':'))?;
    line[field.len() + 1..].trim().trim_end_matches("kB").trim().parse().ok()
}

/// A server the test started (`privlift serve`, `privlift collect`), killed when dropped,
/// even on a failed assertion.
pub struct Running {
    pub child: std::process::Child,
    /// `HOST:PORT`.
    pub addr: String,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `privlift ARGS` and reads the line it prints once ready: `prefix`, then
/// `http://HOST:PORT` (a final `/` allowed).
pub fn start_server(args: &[&str], prefix: &str) -> Running {
    start_server_logging(args, prefix, std::process::Stdio::null())
}

/// [`start_server`], its standard error to `stderr`.
pub fn start_server_logging(args: &[&str], prefix: &str, stderr: std::process::Stdio) -> Running {
    use std::io::BufRead;
    let mut child = std::process::Command::new(crate::common::cli::BIN)
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut server = Running { child, addr: String::new() };
    let mut line = String::new();
    std::io::BufReader::new(stdout).read_line(&mut line).unwrap();
    let url = line.strip_prefix(prefix).and_then(|rest| rest.trim_end().strip_prefix("http://"));
    server.addr = url.unwrap_or_else(|| panic!("{line:?}")).trim_end_matches('/').to_string();
    server
}
