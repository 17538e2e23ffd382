//! `privlift heavy-hitters --db URL --mechanism ID --top K [--sha256 HEX]`: the K most
//! frequent values of a heavy-hitter document's reports in a collector's database, found
//! by prefix extension without a dictionary → `{"values", "estimate", "std_error", "n"}`.

use crate::args;
use crate::error::CliError;

pub fn run(argv: &[String]) -> Result<(), CliError> {
    let a = args::parse("heavy-hitters", argv, &["db", "mechanism", "top", "sha256"], &[])?;
    if a.help {
        return crate::help::print("heavy-hitters");
    }
    if let Some(extra) = a.positionals.first() {
        return Err(CliError::usage(format!("unexpected argument `{extra}`")));
    }
    let need = |flag: &str, meta: &str| {
        a.value(flag).ok_or_else(|| CliError::usage(format!("`privlift heavy-hitters` needs `--{flag} {meta}`")))
    };
    let (db, id, top) = (need("db", "URL")?, need("mechanism", "ID")?, need("top", "K")?);
    let top = crate::open_estimate::parse_top(top).map_err(|e| CliError::usage(e.to_string()))?;
    let value = crate::collect::heavy_hitters_from_db(db, id, a.value("sha256"), top)?;
    crate::out::print_json(&value)
}
