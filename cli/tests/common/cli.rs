//! Running the `privlift` binary from integration tests.

use std::process::Command;

use serde_json::Value;

pub const BIN: &str = env!("CARGO_BIN_EXE_privlift");

/// What one run of the CLI printed.
pub struct Out {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Out {
    /// Asserts success and parses stdout as JSON.
    pub fn json(&self) -> Value {
        assert_eq!(self.code, 0, "stderr: {}", self.stderr);
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("{e}: {}", self.stdout))
    }
    /// Asserts a failure with `code` on stderr, exit code `exit`, and nothing on stdout;
    /// returns stderr.
    pub fn fails(&self, code: &str, exit: i32) -> &str {
        assert_eq!(self.code, exit, "stdout: {} stderr: {}", self.stdout, self.stderr);
        let prefix = format!("privlift: error[{code}]: ");
        assert!(self.stderr.starts_with(&prefix), "expected {prefix:?}, got {:?}", self.stderr);
        assert!(self.stdout.is_empty(), "stdout: {}", self.stdout);
        &self.stderr
    }
}

/// Runs `privlift ARGS`.
pub fn run(args: &[&str]) -> Out {
    let o = Command::new(BIN).args(args).output().expect("run privlift");
    Out {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8(o.stdout).unwrap(),
        stderr: String::from_utf8(o.stderr).unwrap(),
    }
}

/// A temporary directory removed on drop (`.0` is its path).
pub struct TempDir(pub std::path::PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> Self {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::SeqCst);
        let p = std::env::temp_dir().join(format!("privlift-{tag}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
    /// Writes `text` to `name` inside the directory; returns its path.
    pub fn write(&self, name: &str, text: &str) -> String {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    }
    /// Writes `value` as JSON to `name` inside the directory; returns its path.
    pub fn json(&self, name: &str, value: &Value) -> String {
        self.write(name, &value.to_string())
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
