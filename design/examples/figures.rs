//! Regenerates the papers' key figures from privlift's own designers and audits, as
//! hand-written SVG files under `docs/figures/`, and `docs/figures/figures.json` with
//! the numbers behind every curve (per figure: `series`, name → list of `[x, y]`; the
//! papers' printed points under `paper`; test-sized subsets under `subsets`; `notes`).
//!
//! | file | paper |
//! |---|---|
//! | `lip-vs-ldp.svg`, `lip-vs-ldp-accuracy.svg` | Jiang, Seif, Tandon, Li, "Context-Aware Local Information Privacy", IEEE TIFS 16, 2021, doi:10.1109/TIFS.2021.3087350 |
//! | `nmi-vs-eps.svg`, `notions.svg` | Zarrabian, Ding, Sadeghi, "On the Lift, Related Privacy Measures, and Applications to Privacy–Utility Tradeoffs", arXiv:2303.01017 |
//! | `orr-vs-optimal-ldp.svg` | Lopuhaä-Zwakenberg, "The Privacy Funnel from the Viewpoint of Local Differential Privacy", arXiv:2002.01501 |
//! | `linear-reduction.svg`, `linear-reduction-tv.svg` | Ding, Liu, Farokhi, "A Linear Reduction Method for Local Differential Privacy and Log-lift", arXiv:2101.09689 |
//! | `gaussian-sigma.svg` | Jiang et al. (above) Sec. IV-C; Balle, Wang, "Improving the Gaussian Mechanism for Differential Privacy", ICML 2018 |
//!
//! The numbers come from `figures/data.rs`, which `design/tests/figures.rs` shares to
//! recompute them and check `figures.json` (relative tolerance 1e-6). Numbers are
//! written with 7 significant digits and SVG coordinates with one decimal, so the output
//! is byte-stable from run to run.
//!
//! Run: `cargo run -p privlift-design --release --example figures`

#[path = "figures/data.rs"]
mod data;
#[path = "figures/svg.rs"]
mod svg;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use data::{Figure, Mode, Series};

/// `v` with 7 significant digits, trailing zeros dropped (exponent form outside
/// [1e-4, 1e6)).
fn num(v: f64) -> String {
    assert!(v.is_finite(), "a non-finite number in a figure");
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    if !(1e-4..1e6).contains(&a) {
        return format!("{v:.6e}");
    }
    let digits = (6 - a.log10().floor() as i32).max(0) as usize;
    let s = format!("{v:.digits$}");
    let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s };
    if s == "-0" {
        "0".into()
    } else {
        s
    }
}

/// A JSON string literal.
fn string(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn points(p: &[[f64; 2]]) -> String {
    let v: Vec<String> = p.iter().map(|q| format!("[{}, {}]", num(q[0]), num(q[1]))).collect();
    format!("[{}]", v.join(", "))
}

fn series_map(out: &mut String, key: &str, entries: &[(&str, &[[f64; 2]])], last: bool) {
    let _ = write!(out, "      {}: {{", string(key));
    for (i, (name, p)) in entries.iter().enumerate() {
        let _ = write!(out, "{}\n        {}: {}", if i == 0 { "" } else { "," }, string(name), points(p));
    }
    let close = if entries.is_empty() { "}" } else { "\n      }" };
    let _ = writeln!(out, "{close}{}", if last { "" } else { "," });
}

fn json(figures: &[Figure]) -> String {
    let mut o = String::from("{\n");
    let _ = writeln!(o, "  \"generated_by\": \"cargo run -p privlift-design --release --example figures\",");
    let _ = writeln!(o, "  \"figures\": [");
    for (k, f) in figures.iter().enumerate() {
        let _ = writeln!(o, "    {{");
        for (key, v) in [
            ("file", f.file),
            ("title", f.title),
            ("subtitle", f.subtitle.as_str()),
            ("x_label", f.x_label),
            ("y_label", f.y_label),
        ] {
            let _ = writeln!(o, "      {}: {},", string(key), string(v));
        }
        let named = |s: &[Series]| -> Vec<(String, Vec<[f64; 2]>)> {
            s.iter().map(|x| (x.name.clone(), x.points.clone())).collect()
        };
        let curves = named(&f.series);
        let paper: Vec<(String, Vec<[f64; 2]>)> = f.paper.iter().map(|p| (p.name.clone(), p.points.clone())).collect();
        let subsets = named(&f.subsets);
        for (key, list) in [("series", &curves), ("paper", &paper), ("subsets", &subsets)] {
            let entries: Vec<(&str, &[[f64; 2]])> = list.iter().map(|(n, p)| (n.as_str(), p.as_slice())).collect();
            series_map(&mut o, key, &entries, false);
        }
        let notes: Vec<String> = f.notes.iter().map(|n| format!("\n        {}", string(n))).collect();
        let _ = writeln!(o, "      \"notes\": [{}\n      ]", notes.join(","));
        let _ = writeln!(o, "    }}{}", if k + 1 == figures.len() { "" } else { "," });
    }
    let _ = writeln!(o, "  ]");
    o.push_str("}\n");
    o
}

fn chart(f: &Figure) -> String {
    svg::render(&svg::Chart {
        title: f.title,
        subtitle: &f.subtitle,
        x_label: f.x_label,
        y_label: f.y_label,
        log_y: f.log_y,
        y_range: f.y_range,
        curves: f.series.iter().map(|s| svg::Curve { name: &s.name, points: &s.points }).collect(),
        paper: f.paper.iter().map(|p| svg::Points { name: &p.name, points: &p.points, of: p.of }).collect(),
    })
}

fn main() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/figures");
    std::fs::create_dir_all(&dir).expect("create docs/figures");
    let start = Instant::now();
    let mut figures = Vec::new();
    for (file, build) in data::FIGURES {
        let t = Instant::now();
        let f = build(Mode::Full);
        assert_eq!(f.file, file);
        println!("{file}: computed in {:.2} s", t.elapsed().as_secs_f64());
        for s in f.series.iter().chain(&f.subsets) {
            let v: Vec<String> = s.points.iter().map(|p| format!("({:.3}, {:.4})", p[0], p[1])).collect();
            println!("  {}: {}", s.name, v.join(" "));
        }
        for p in &f.paper {
            println!("  {}: {:?} (beside {})", p.name, p.points, f.series[p.of].name);
        }
        std::fs::write(dir.join(f.file), chart(&f)).expect("write an SVG");
        figures.push(f);
    }
    std::fs::write(dir.join("figures.json"), json(&figures)).expect("write figures.json");
    println!(
        "wrote {} figures and figures.json to {} in {:.1} s",
        figures.len(),
        dir.display(),
        start.elapsed().as_secs_f64()
    );
}
