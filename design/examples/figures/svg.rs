//! A small hand-written SVG line chart: a title and subtitle, axes with ticks and labels,
//! a light grid, one polyline with markers per series (each series a distinct colour,
//! dash pattern and marker), hollow star markers for a paper's printed points, and a
//! legend under the plot. Every coordinate is printed with one decimal, so the output is
//! a deterministic function of the numbers.

use std::fmt::Write;

/// One series drawn as a line with markers.
#[derive(Debug, Clone, Copy)]
pub struct Curve<'a> {
    /// The legend text.
    pub name: &'a str,
    /// `[x, y]` in drawing order; points with a non-finite coordinate (or y ≤ 0 on a log
    /// axis) are left out.
    pub points: &'a [[f64; 2]],
}

/// Printed points drawn as hollow stars in the colour of curve `of`.
#[derive(Debug, Clone, Copy)]
pub struct Points<'a> {
    /// The legend text.
    pub name: &'a str,
    /// `[x, y]`.
    pub points: &'a [[f64; 2]],
    /// The index of the curve they belong beside.
    pub of: usize,
}

/// What to draw.
#[derive(Debug, Clone)]
pub struct Chart<'a> {
    /// The title line.
    pub title: &'a str,
    /// A smaller line under the title.
    pub subtitle: &'a str,
    /// The x-axis label.
    pub x_label: &'a str,
    /// The y-axis label.
    pub y_label: &'a str,
    /// A logarithmic y axis.
    pub log_y: bool,
    /// A fixed y range, else one fitted to the data (from 0 on a linear axis).
    pub y_range: Option<(f64, f64)>,
    /// The curves.
    pub curves: Vec<Curve<'a>>,
    /// Printed points.
    pub paper: Vec<Points<'a>>,
}

/// Width and height of every chart, in pixels.
pub const WIDTH: f64 = 640.0;
/// See [`WIDTH`].
pub const HEIGHT: f64 = 400.0;

/// Okabe–Ito colours (distinguishable with colour-vision deficiencies), then black.
const COLOURS: [&str; 7] = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"];
/// Dash patterns, one per series index (the first solid).
const DASHES: [&str; 7] = ["", "7 3", "2 3", "9 3 2 3", "4 2", "1 2", "12 4"];

#[derive(Debug, Clone, Copy)]
enum Marker {
    Circle,
    Square,
    TriangleUp,
    Diamond,
    TriangleDown,
    Cross,
    Plus,
    Star,
}

const MARKERS: [Marker; 7] = [
    Marker::Circle,
    Marker::Square,
    Marker::TriangleUp,
    Marker::Diamond,
    Marker::TriangleDown,
    Marker::Cross,
    Marker::Plus,
];

/// `&`, `<`, `>` and `"` escaped for XML text and attributes.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn marker(out: &mut String, m: Marker, x: f64, y: f64, r: f64, colour: &str, hollow: bool) {
    let (fill, stroke, width) = if hollow { ("#ffffff", colour, 1.6) } else { (colour, colour, 1.0) };
    let style = format!(r#"fill="{fill}" stroke="{stroke}" stroke-width="{width:.1}""#);
    let pts = |v: &[(f64, f64)]| -> String {
        v.iter().map(|(dx, dy)| format!("{:.1},{:.1}", x + dx * r, y + dy * r)).collect::<Vec<_>>().join(" ")
    };
    let _ = match m {
        Marker::Circle => writeln!(out, r#"<circle cx="{x:.1}" cy="{y:.1}" r="{:.1}" {style}/>"#, r * 0.85),
        Marker::Square => writeln!(
            out,
            r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" {style}/>"#,
            x - 0.75 * r,
            y - 0.75 * r,
            1.5 * r,
            1.5 * r
        ),
        Marker::TriangleUp => {
            writeln!(out, r#"<polygon points="{}" {style}/>"#, pts(&[(0.0, -1.0), (0.95, 0.75), (-0.95, 0.75)]))
        }
        Marker::TriangleDown => {
            writeln!(out, r#"<polygon points="{}" {style}/>"#, pts(&[(0.0, 1.0), (0.95, -0.75), (-0.95, -0.75)]))
        }
        Marker::Diamond => {
            writeln!(out, r#"<polygon points="{}" {style}/>"#, pts(&[(0.0, -1.0), (0.8, 0.0), (0.0, 1.0), (-0.8, 0.0)]))
        }
        Marker::Cross => writeln!(
            out,
            r#"<path d="M{:.1},{:.1}L{:.1},{:.1}M{:.1},{:.1}L{:.1},{:.1}" stroke="{colour}" stroke-width="1.8" fill="none"/>"#,
            x - 0.8 * r,
            y - 0.8 * r,
            x + 0.8 * r,
            y + 0.8 * r,
            x - 0.8 * r,
            y + 0.8 * r,
            x + 0.8 * r,
            y - 0.8 * r
        ),
        Marker::Plus => writeln!(
            out,
            r#"<path d="M{:.1},{y:.1}L{:.1},{y:.1}M{x:.1},{:.1}L{x:.1},{:.1}" stroke="{colour}" stroke-width="1.8" fill="none"/>"#,
            x - r,
            x + r,
            y - r,
            y + r
        ),
        Marker::Star => {
            let v: Vec<(f64, f64)> = (0..10)
                .map(|k| {
                    let a = std::f64::consts::PI * (k as f64 / 5.0 - 0.5);
                    let rr = if k % 2 == 0 { 1.0 } else { 0.45 };
                    (rr * a.cos(), rr * a.sin())
                })
                .collect();
            writeln!(out, r#"<polygon points="{}" {style}/>"#, pts(&v))
        }
    };
}

/// A "nice" tick step (1, 2 or 5 × 10^k) for about `target` intervals over `span`.
fn nice_step(span: f64, target: f64) -> f64 {
    let raw = span / target;
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let m = if f < 1.5 {
        1.0
    } else if f < 3.0 {
        2.0
    } else if f < 7.0 {
        5.0
    } else {
        10.0
    };
    m * mag
}

/// Decimals needed to print multiples of `step`.
fn decimals(step: f64) -> usize {
    (-(step.log10().floor())).max(0.0) as usize
}

/// A linear axis over `[lo, hi]` widened to whole steps: (lo, hi, ticks, decimals).
fn linear_axis(lo: f64, hi: f64, target: f64) -> (f64, f64, Vec<f64>, usize) {
    let (lo, hi) = if hi > lo { (lo, hi) } else { (lo - 0.5, hi + 0.5) };
    let step = nice_step(hi - lo, target);
    let (a, b) = ((lo / step + 1e-9).floor(), (hi / step - 1e-9).ceil());
    let ticks = (a as i64..=b as i64).map(|k| k as f64 * step).collect();
    (a * step, b * step, ticks, decimals(step))
}

/// A log axis over whole decades: (lo, hi, ticks at 1, 2, 5 × 10^k).
fn log_axis(lo: f64, hi: f64) -> (f64, f64, Vec<f64>) {
    let (a, b) = (lo.log10().floor(), hi.log10().ceil().max(lo.log10().floor() + 1.0));
    let mut ticks = Vec::new();
    for k in a as i64..=b as i64 {
        for m in [1.0, 2.0, 5.0] {
            let t = m * 10f64.powi(k as i32);
            if t >= 10f64.powf(a) * (1.0 - 1e-12) && t <= 10f64.powf(b) * (1.0 + 1e-12) {
                ticks.push(t);
            }
        }
    }
    (10f64.powf(a), 10f64.powf(b), ticks)
}

fn log_label(t: f64) -> String {
    if t >= 1.0 {
        format!("{t:.0}")
    } else {
        format!("{:.*}", decimals(t), t)
    }
}

/// The SVG document of `chart`.
pub fn render(chart: &Chart) -> String {
    let finite = |p: &[f64; 2]| p[0].is_finite() && p[1].is_finite() && (!chart.log_y || p[1] > 0.0);
    let all: Vec<[f64; 2]> = chart
        .curves
        .iter()
        .flat_map(|c| c.points.iter())
        .chain(chart.paper.iter().flat_map(|p| p.points.iter()))
        .copied()
        .filter(finite)
        .collect();
    let fold = |k: usize, f: fn(f64, f64) -> f64, init: f64| all.iter().map(|p| p[k]).fold(init, f);
    let (x_min, x_max) = (fold(0, f64::min, f64::INFINITY), fold(0, f64::max, f64::NEG_INFINITY));
    let (y_min, y_max) = (fold(1, f64::min, f64::INFINITY), fold(1, f64::max, f64::NEG_INFINITY));

    // Layout: title, subtitle, plot, x label, legend (two columns when the names are short).
    let entries: Vec<(&str, Option<usize>, usize)> = chart
        .curves
        .iter()
        .enumerate()
        .map(|(i, c)| (c.name, Some(i), i))
        .chain(chart.paper.iter().map(|p| (p.name, None, p.of)))
        .collect();
    let longest = entries.iter().map(|e| e.0.chars().count()).max().unwrap_or(0);
    let columns = if longest <= 46 { 2 } else { 1 };
    let rows = entries.len().div_ceil(columns);
    let row_h = 15.0;
    let legend_top = HEIGHT - 10.0 - rows as f64 * row_h;
    let (left, right, top) = (66.0, WIDTH - 18.0, 54.0);
    let bottom = legend_top - 42.0;

    let (x0, x1, x_ticks, x_dec) = linear_axis(x_min.min(0.0), x_max, 8.0);
    let (y0, y1, y_ticks, y_dec, log_y) = if chart.log_y {
        let (a, b, t) = log_axis(y_min, y_max);
        (a.log10(), b.log10(), t, 0, true)
    } else {
        let (lo, hi) = chart.y_range.unwrap_or((y_min.min(0.0), y_max));
        let (a, b, t, d) = linear_axis(lo, hi, 5.0);
        (a, b, t, d, false)
    };
    let sx = |x: f64| left + (x - x0) / (x1 - x0) * (right - left);
    let sy = |y: f64| {
        let v = if log_y { y.log10() } else { y };
        bottom - (v - y0) / (y1 - y0) * (bottom - top)
    };

    // A clip-path id of its own, so that several charts can be inlined in one page.
    let clip: String =
        "clip-".chars().chain(chart.title.chars().filter(char::is_ascii_alphanumeric).take(40)).collect();
    let mut o = String::new();
    let _ = writeln!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH:.0}" height="{HEIGHT:.0}" viewBox="0 0 {WIDTH:.0} {HEIGHT:.0}" font-family="Helvetica, Arial, sans-serif">"#
    );
    let _ = writeln!(o, "<title>{}</title>", escape(chart.title));
    let _ = writeln!(o, r##"<rect width="100%" height="100%" fill="#ffffff"/>"##);
    let _ = writeln!(
        o,
        r##"<text x="{:.1}" y="20" font-size="15" font-weight="bold" text-anchor="middle" fill="#111111">{}</text>"##,
        WIDTH / 2.0,
        escape(chart.title)
    );
    let _ = writeln!(
        o,
        r##"<text x="{:.1}" y="37" font-size="10.5" text-anchor="middle" fill="#444444">{}</text>"##,
        WIDTH / 2.0,
        escape(chart.subtitle)
    );
    let _ = writeln!(
        o,
        r#"<defs><clipPath id="{clip}"><rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}"/></clipPath></defs>"#,
        left - 6.0,
        top - 6.0,
        right - left + 12.0,
        bottom - top + 12.0
    );

    // Grid and ticks.
    let _ = writeln!(o, r##"<g stroke="#e3e3e3" stroke-width="1">"##);
    for &t in &x_ticks {
        let _ = writeln!(o, r#"<line x1="{:.1}" y1="{top:.1}" x2="{:.1}" y2="{bottom:.1}"/>"#, sx(t), sx(t));
    }
    for &t in &y_ticks {
        let _ = writeln!(o, r#"<line x1="{left:.1}" y1="{:.1}" x2="{right:.1}" y2="{:.1}"/>"#, sy(t), sy(t));
    }
    let _ = writeln!(o, "</g>");
    let _ = writeln!(
        o,
        r##"<rect x="{left:.1}" y="{top:.1}" width="{:.1}" height="{:.1}" fill="none" stroke="#333333" stroke-width="1"/>"##,
        right - left,
        bottom - top
    );
    let _ = writeln!(o, r##"<g font-size="11" fill="#222222" stroke="none">"##);
    for &t in &x_ticks {
        let _ = writeln!(
            o,
            r##"<line x1="{:.1}" y1="{bottom:.1}" x2="{:.1}" y2="{:.1}" stroke="#333333"/><text x="{:.1}" y="{:.1}" text-anchor="middle">{:.*}</text>"##,
            sx(t),
            sx(t),
            bottom + 4.0,
            sx(t),
            bottom + 16.0,
            x_dec,
            t
        );
    }
    for &t in &y_ticks {
        let label = if log_y { log_label(t) } else { format!("{:.*}", y_dec, t) };
        let _ = writeln!(
            o,
            r##"<line x1="{:.1}" y1="{:.1}" x2="{left:.1}" y2="{:.1}" stroke="#333333"/><text x="{:.1}" y="{:.1}" text-anchor="end">{label}</text>"##,
            left - 4.0,
            sy(t),
            sy(t),
            left - 7.0,
            sy(t) + 4.0
        );
    }
    let _ = writeln!(o, "</g>");
    let _ = writeln!(
        o,
        r##"<text x="{:.1}" y="{:.1}" font-size="12" text-anchor="middle" fill="#111111">{}</text>"##,
        (left + right) / 2.0,
        bottom + 33.0,
        escape(chart.x_label)
    );
    let _ = writeln!(
        o,
        r##"<text transform="translate(16,{:.1}) rotate(-90)" font-size="12" text-anchor="middle" fill="#111111">{}</text>"##,
        (top + bottom) / 2.0,
        escape(chart.y_label)
    );

    // Curves, then the paper's points on top.
    let _ = writeln!(o, r#"<g clip-path="url(#{clip})">"#);
    for (i, c) in chart.curves.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let pts: Vec<[f64; 2]> = c.points.iter().copied().filter(finite).collect();
        let path: Vec<String> = pts.iter().map(|p| format!("{:.1},{:.1}", sx(p[0]), sy(p[1]))).collect();
        let dash = DASHES[i % DASHES.len()];
        let dash = if dash.is_empty() { String::new() } else { format!(r#" stroke-dasharray="{dash}""#) };
        let _ = writeln!(o, r#"<g><title>{}</title>"#, escape(c.name));
        let _ = writeln!(
            o,
            r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2"{dash} stroke-linejoin="round"/>"#,
            path.join(" ")
        );
        for p in &pts {
            marker(&mut o, MARKERS[i % MARKERS.len()], sx(p[0]), sy(p[1]), 3.6, colour, false);
        }
        let _ = writeln!(o, "</g>");
    }
    for p in &chart.paper {
        let colour = COLOURS[p.of % COLOURS.len()];
        let _ = writeln!(o, r#"<g><title>{}</title>"#, escape(p.name));
        for q in p.points.iter().filter(|q| finite(q)) {
            marker(&mut o, Marker::Star, sx(q[0]), sy(q[1]), 8.0, colour, true);
        }
        let _ = writeln!(o, "</g>");
    }
    let _ = writeln!(o, "</g>");

    // Legend.
    let col_w = (WIDTH - 2.0 * 18.0) / columns as f64;
    let _ = writeln!(o, r##"<g font-size="11" fill="#222222">"##);
    for (k, (name, curve, of)) in entries.iter().enumerate() {
        let (col, row) = (k / rows, k % rows);
        let x = 18.0 + col as f64 * col_w;
        let y = legend_top + row as f64 * row_h + row_h / 2.0;
        let colour = COLOURS[of % COLOURS.len()];
        match curve {
            Some(i) => {
                let dash = DASHES[i % DASHES.len()];
                let dash = if dash.is_empty() { String::new() } else { format!(r#" stroke-dasharray="{dash}""#) };
                let _ = writeln!(
                    o,
                    r#"<line x1="{x:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{colour}" stroke-width="2"{dash}/>"#,
                    x + 30.0
                );
                marker(&mut o, MARKERS[i % MARKERS.len()], x + 15.0, y, 3.6, colour, false);
            }
            None => marker(&mut o, Marker::Star, x + 15.0, y, 7.0, colour, true),
        }
        let _ = writeln!(o, r#"<text x="{:.1}" y="{:.1}">{}</text>"#, x + 36.0, y + 4.0, escape(name));
    }
    let _ = writeln!(o, "</g>");
    let _ = writeln!(o, "</svg>");
    o
}
