//! What a served file's name says: its `Content-Type`, and whether it carries a content
//! hash (then it may be cached for good).

use std::path::Path;

/// Whether a file name carries a content hash, so that its content never changes: a
/// segment of its stem (the name before the last `.`; segments are separated by `.`, `-`
/// or `_`) made of at least 8 lower-case hex digits, among them both digits and letters
/// (`privlift_bg.3f2a9c1e.wasm`, `app-0c5e7d91.js`; not `data-20240101.json`, which
/// may be a date, nor `privlift.wasm`). Only the file name counts, not its directories.
pub(crate) fn is_hashed_name(path: &Path) -> bool {
    let (Some(stem), Some(_)) = (path.file_stem().and_then(|s| s.to_str()), path.extension()) else {
        return false;
    };
    stem.split(['.', '-', '_']).any(|seg| {
        seg.len() >= 8
            && seg.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
            && seg.bytes().any(|b| b.is_ascii_digit())
            && seg.bytes().any(|b| b.is_ascii_alphabetic())
    })
}

/// Content-Type by file extension.
pub(crate) fn content_type(path: &Path) -> &'static str {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    match ext.as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript",
        "wasm" => "application/wasm",
        "json" | "map" => "application/json",
        "css" => "text/css",
        "png" => "image/png",
        "svg" => "image/svg+xml",
        "ts" => "text/plain", // also .d.ts
        "txt" | "md" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_types() {
        let ct = |p: &str| content_type(Path::new(p));
        assert_eq!(ct("index.html"), "text/html; charset=utf-8");
        assert_eq!(ct("a.js"), "text/javascript");
        assert_eq!(ct("a.mjs"), "text/javascript");
        assert_eq!(ct("pkg/privlift_bg.wasm"), "application/wasm");
        assert_eq!(ct("a.json"), "application/json");
        assert_eq!(ct("a.css"), "text/css");
        assert_eq!(ct("a.png"), "image/png");
        assert_eq!(ct("a.svg"), "image/svg+xml");
        assert_eq!(ct("privlift.d.ts"), "text/plain");
        assert_eq!(ct("a.ts"), "text/plain");
        assert_eq!(ct("LICENSE"), "application/octet-stream");
    }

    #[test]
    fn hashed_names() {
        let hashed = |p: &str| is_hashed_name(Path::new(p));
        assert!(hashed("pkg/privlift_bg.3f2a9c1e.wasm"));
        assert!(hashed("app-0c5e7d91aa.js"));
        assert!(hashed("chunk_1234abcd.min.js"));
        assert!(hashed("3f2a9c1e0b.json"));
        assert!(!hashed("pkg/privlift_bg.wasm"));
        assert!(!hashed("data-20240101.json")); // digits only: maybe a date
        assert!(!hashed("deadbeefcafe.css")); // letters only: a word
        assert!(!hashed("app.3f2a9c1.js")); // 7 digits
        assert!(!hashed("app.3F2A9C1E.js")); // upper case
        assert!(!hashed("app.3f2a9c1g.js"));
        assert!(!hashed("3f2a9c1e"));
        assert!(!hashed("x.3f2a9c1e")); // the hash is the extension
        assert!(!hashed("3f2a9c1e/app.js"));
    }
}
