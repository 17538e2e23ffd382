//! `privlift`: the curator's command-line tool.
//!
//! * `privlift audit` prints the leakage audit of a mechanism as one JSON object;
//! * `privlift bound` prints an accounting bound (LIP ↔ LDP, composition, transfer);
//! * `privlift design` designs a mechanism and prints its (audited) document;
//! * `privlift gaussian`, `laplace`, `sampling` calibrate the continuous-data mechanisms;
//! * `privlift estimate` estimates the input histogram from the counts of the reports;
//! * `privlift serve` serves a directory over HTTP/1.1 on loopback (browser demo, tests);
//! * `privlift collect` serves the published documents and stores the reports in SQLite or
//!   PostgreSQL, and answers the curator's estimates from them.
//!
//! Every error is printed to stderr as `privlift: error[CODE]: MESSAGE`, where CODE is
//! [`privlift::Error::code`]. Exit codes: 0 success, 1 invalid input or I/O failure,
//! 2 usage error (unknown command or option, missing or malformed argument).
#![forbid(unsafe_code)]

mod args;
mod audit;
mod bound;
mod collect;
mod continuous;
mod continuous_design;
mod design;
mod estimate;
mod files;
mod help;
mod http;
mod out;
mod receipt;
mod serve;
mod verify;

use std::io::Write;
use std::process::ExitCode;

pub const HELP: &str = "\
privlift — curator tool for privlift mechanism documents

Usage:
  privlift audit SPEC.json [--alpha-order A]
  privlift audit --matrix M.json (--prior P.json | --joint J.json) [--alpha-order A]
  privlift design METHOD [--prior P.json | --joint J.json | --priors PS.json]
                  [--epsilon E] [--alpha A] [--a A --b B] [--distortion D.json]
                  [--eps-l EL --eps-u EU] [--notion NOTION] [--alpha-order K] [--objective O] [--id ID]
  privlift estimate --spec SPEC.json --counts C.json [--counts C2.json …] [--method mle|unbiased] [--project]
  privlift estimate --db URL --mechanism ID [--sha256 HEX] [--method mle|unbiased] [--project]
  privlift collect --db URL --dir MECHANISMS_DIR [--port PORT] [--host HOST] [--public] [--threads N]
  privlift simulate --db URL --dir MECHANISMS_DIR --users N [--seed S] [--truth OUT.json]
  privlift bound lip-to-ldp --epsilon E --pmin P
  privlift bound ldp-to-lip --epsilon E --pmin P
  privlift bound lip-to-ldp-exact --prior P.json --epsilon E
  privlift bound compose --prior P.json --matrix M1.json [--matrix M2.json ...]
  privlift bound transfer --p1 P1.json --p2 P2.json --matrix M.json --epsilon E
                          [--samples N --beta B]
  privlift receipt SPEC.json (--output Y | --bits 0101...)
  privlift receipt DOC.json --output Y [--x X]       (continuous document)
  privlift design METHOD (--prior P.json | --samples S.csv) --epsilon E [--delta D]
                  --domain L,U [--step G] [--components K] [--id ID]   (continuous)
  privlift gaussian delta --epsilon E --sigma-n S --x X --mean M --sd SX
  privlift gaussian sigma --epsilon E --delta D --x X --mean M --sd SX
  privlift gaussian analytic --epsilon E --sigma S --sensitivity D
  privlift gaussian e-divergence --gamma G --mean1 M1 --sd1 S1 --mean2 M2 --sd2 S2
  privlift laplace lip --prior P.json --epsilon E
  privlift sampling --epsilon E --delta D
  privlift serve [--dir DIR] [--port PORT] [--host HOST] [--public]
  privlift verify DOC.json [--policy POLICY.json]
  privlift help | --help | -h
  privlift --version | -V

Commands:
  audit     Print the leakage audit of a mechanism as one JSON object (nats;
            an unbounded value is printed as the string \"inf\", one the audit
            does not compute (large unary encodings) as \"nan\"). For a document,
            also `claims_hold` and the list of checked `claims` (if it claims any);
            a false claim is reported, not refused: the exit code stays 0.
  design    Design a mechanism and print its document (pretty JSON) with its
            claims and `utility` (mi_xy, nmi, tv, hamming, expected_distortion;
            null where undefined). Every design is audited by the library before
            it is printed; one that misses its claims is an error, never a document.
  estimate  Print the estimate of the input histogram P_X from the counts of the
            reports: {\"estimate\", \"std_error\", \"n\", \"labels\", \"method\"}.
            --method mle (default): maximum likelihood by EM, any channel, plus
            \"unidentified\" (directions the channel cannot identify); --method
            unbiased: the inversion. \"identified\"[x] says whether the reports
            determine P_X(x); where they do not, \"std_error\"[x] is null and
            \"interval\"[x] is [lo, hi], the values P_X(x) takes among the
            maximum-likelihood solutions (\"estimate\"[x] is one of them: read
            the interval). \"projected\" (onto the simplex) with
            --project. Counts are mergeable: give --counts once per shard.
            A document with a declared secret adds \"secret\": P_S from its joint
            (with its own \"identified\" and \"interval\").
            --db URL --mechanism ID: the counts and the document a collector
            stored (the published version, or --sha256 HEX), plus \"sha256\"; a
            continuous document adds \"mean\" and \"mean_std_error\" (the
            estimate is then the lattice histogram, by EM deconvolution).
  collect   The curator's collector: serves the documents of MECHANISMS_DIR
            (GET /v1/mechanisms/ID, ETag = SHA-256), takes reports (POST
            /v1/reports {\"reports\": [{\"mechanism\", \"sha256\", \"output\",
            \"report_id\"}]} -> 202 {\"accepted\", \"duplicates\"}; a bad report
            refuses the whole batch: 400/404 {\"code\", \"message\"}) and answers
            GET /v1/estimates/ID as `estimate --db` does. URL is sqlite:PATH
            (created, write-ahead log) or postgres://USER@HOST:PORT/DATABASE
            (a lost connection is replaced; until then 503 storage with
            Retry-After). Loopback unless --public (default port 8081); prints
            `listening on http://HOST:PORT` once ready. Bodies over 4 MiB get
            413 at once; bodies in flight share 128 MiB, beyond it 503 busy
            with Retry-After (send again, same report ids).
  simulate  A synthetic population (a simulation, seeded: never for real
            users): N users per document of MECHANISMS_DIR draw their value
            from its prior, perturb it with the verified mechanism, and their
            reports are stored in the collector's database (the same seed
            stores nothing twice). --truth writes their true histograms.
  bound     Print a privacy-accounting bound (Jiang et al., Context-Aware LIP)
            as one JSON object (nats; unbounded = \"inf\"):
            lip-to-ldp        {\"bound\"}: LDP implied by E-LIP when min P = P (Prop 1)
            ldp-to-lip        {\"bound\"}: LIP implied by E-LDP, ln(P + e^E (1 - P))
            lip-to-ldp-exact  {\"ldp\"}: worst LDP of any E-LIP mechanism under
                              the prior (the optimum of eq 9; = Prop 1 if |X| >= 3)
            compose           {\"eps_k\", \"bound\", \"exact\"}: the LIP of each
                              release, Thm 4's bound on the joint release, and
                              its exact LIP (refused beyond 100000 joint outputs)
            transfer          {\"eta\", \"lip_p1\", \"lip_p2\", \"eq12_bound\",
                              \"cor7_eta\"}: a mechanism E-LIP under P1 used under
                              P2 (Lemma 3, eq 12); cor7_eta (null without
                              --samples/--beta): Cor 7's gap when P1 is the
                              empirical prior of N samples, w.p. 1 - B
            E >= 0 (nats); P in (0, 1] ([0, 1] for ldp-to-lip); B in (0, 1).
  receipt   Verify SPEC.json as a client would (claims, exact sampler) and print
            the receipt of the released output Y (label or index; --bits for a
            unary encoding): the prior, posterior and lift of every value of X
            (`entries`) and, when the document declares a secret, of every value
            of S (`secret.entries`), each with the bounds its audit proved.
  verify    Verify DOC.json exactly as a client does (same library path as the
            browser build) against POLICY.json, a JSON object with the JS names
            (maxLdpX, maxLdp, maxLip, maxEpsL, maxEpsU: limits about the user's
            value X; maxLdpS, maxLipS, maxEpsLS, maxEpsUS: about the secret S;
            maxVerifyWork: the cost budget; a continuous document takes
            {\"lip\": {\"eps\", \"delta\"}, \"ldp\": {...}, \"maxVerifyWork\"}). Prints
            one JSON object: {\"verified\": true, \"id\", \"checks\", \"receipt_bounds\":
            {\"min_lift\", \"max_lift\"}} (exit 0) or {\"verified\": false,
            \"error\": {\"code\", \"message\"}} (exit 1).
  gaussian  Continuous data, Gaussian noise Y = x + N(0, S^2) under the prior
            X ~ N(M, SX^2) (Jiang et al. Sec. IV-C; (E, D)-LIP as in their
            definition (3)), one JSON object each:
            delta         {\"delta\", \"e_y_given_x_vs_y\", \"e_y_vs_y_given_x\"}:
                          the delta a user with value X gets (Thm 5 at X) and
                          the two E-divergences E_{e^E}(f_Y|x || f_Y), E_{e^E}(f_Y || f_Y|x)
            sigma         {\"sigma_n\"}: the smallest S giving delta <= D at X (Cor 10)
            analytic      {\"delta\", \"vanilla_bound\"}: E-LDP baselines for
                          sensitivity D: Balle-Wang's exact delta (eq 24) and
                          1.25 exp(-E^2 S^2 / 2 D^2)
            e-divergence  {\"e\"}: E_G(N(M1, S1^2) || N(M2, S2^2)) (Lemma 4)
  laplace   lip: Laplace noise under a discrete prior whose labels are the numeric
            values: {\"b_ldp\", \"b_lip\", \"lip\"}: the scales for E-LDP and
            E-LIP (eq 25, without its switch) and the exact LIP of b_lip
  sampling  {\"lambda\"}: the largest release probability of the sampling
            mechanism that is (E, D)-LIP (Prop 2, shown tight)
  serve     Serve DIR (default `www`) over HTTP/1.1 on HOST:PORT (default
            127.0.0.1:8080; `--port 0` picks a free port). A non-loopback HOST
            needs `--public`. Prints one line
            `privlift: serving DIR at http://HOST:PORT/` when ready. Symbolic
            links are followed inside DIR only (one leading out: 403).

Design methods (flags in [] are optional; --id ID always is, default METHOD-epsE):
  krr              (--prior | --joint) --epsilon E   k-ary RR, claims ldp_x = E
  oue              (--prior | --joint) --epsilon E   optimal unary encoding, ldp_x = E
  rr-lip           (--prior | --joint) --epsilon E   prior-aware RR, claims lip = E
                   [--objective hit|mi|distortion] [--distortion D.json]: what
                   it optimises: hit = P(Y = X) (the paper's, default; may
                   release nothing about X on a skewed prior: said on stderr
                   and in the document), mi = I(X;Y) (ORR w.r.t. X),
                   distortion = E[d(X,Y)] (d = |x - y| without D.json)
  rr-lip-interval  --a A --b B --epsilon E [--prior]  binary RR for P_X(1) in [A, B]
                   (labels from P.json, default [\"0\", \"1\"]), claims bp_lip and lip
  rr-bp-lip        --priors PS.json --epsilon E [--distortion D.json]
                   RR that is E-LIP under every prior of the set (an LP)
  linear-markov    --joint J.json --alpha A   linear reduction, Markov channel
  linear-tv        --joint J.json --alpha A   linear reduction, optimal for TV
  linear-distance  --joint J.json --alpha A [--distortion D.json]
                   linear reduction, optimal for expected distortion
  orr-lip          (--prior | --joint) --epsilon E [--exact]
                   optimal E-LIP w.r.t. S (ORR), lip = E
  orr-alip         (--prior | --joint) --eps-l EL --eps-u EU [--exact]
                   optimal (EL, EU)-ALIP w.r.t. S (AORR), claims alip
  orr-ldp          (--prior | --joint) --epsilon E   optimal E-LDP w.r.t. S, ldp = E
  watchdog         (--prior | --joint) BUDGET   watchdog, complete merging
  subset-merging   (--prior | --joint) BUDGET   watchdog, subset merging (Alg. 1)
  srr              (--prior | --joint) BUDGET   subset random response (Alg. 2; lip, alip)
  srlip            --joint J.json --epsilon E   multi-attribute X: product of
                   per-attribute channels, claims srlip (side-channel resistant
                   LIP) and lip; J.json with \"attributes\" (see Files)
  BUDGET: [--notion lip|alip|ldp] with --epsilon E (lip, ldp) or --eps-l EL --eps-u EU
  (alip; the default notion when they are given, else lip); or (watchdog,
  subset-merging) --notion l1|chi2|alpha with --epsilon E or --eps-l EL --eps-u EU
  (lift-based and lift-inverse measures, lift paper Sec. VI-B; alpha needs
  --alpha-order K, K > 1), claims l1, chi2 or alpha. These print `groups`
  and `low_risk` (input indices) in `utility`; the vertex methods (orr-*, srr)
  report progress on stderr and refuse, suggesting srr, a size that would take
  too long (past about 2e8 flops of vertex search); --exact (orr-lip, orr-alip)
  lifts that cap: it prints an estimate of the work first, then its progress, on
  stderr (minutes at |X| = 200, |S| = 5). Ctrl-C cancels.
  E, EL, EU > 0 (nats); A in (0, 1]; 0 <= A <= B <= 1 for --a/--b.

Continuous design methods (a value in [L, U] on the lattice L + k*G, default
G = (U - L)/1000; exact discrete noise; audited on the lattice; P.json is a
document prior {\"gaussian\": {\"mean\", \"sd\"}} | {\"gmm\": {\"weights\", \"means\",
\"sds\"}} | {\"histogram\": {\"edges\", \"p\"}}; S.csv numbers, fitted by a GMM of
at most K components, default 4):
  gaussian-lip           --delta D   one sigma, (E, D)-LIP (Thm 5 on the lattice)
  gaussian-lip-instance  --delta D   sigma per bin (Cor 10's shape, scaled until the
                                     true mixture output meets (E, D)-LIP)
  analytic-gaussian      --delta D   (E, D)-LDP, eq 24 with sensitivity U - L
  laplace-lip                        E-LIP (Thm 6 / eq 25, then the exact smallest b)
  laplace-ldp                        E-LDP, b = (U - L)/E
  sampling               --delta D   eq 20 with Prop 2's lambda, (E, D)-LIP
  `privlift audit DOC.json` prints {\"lip\": {\"eps\", \"delta\"}, \"ldp\": {...},
  \"lip_pure_eps\", \"ldp_pure_eps\", \"tail_mass\", \"claims_hold\", \"claims\"} for
  a continuous document (delta at the claimed eps); `privlift receipt DOC.json
  --output Y [--x X]` the ratio P(Y|x)/P(Y) over the lattice (<= 256 points) and at X.

Files:
  SPEC.json  a mechanism document (format \"privlift-mechanism\", version 1)
  M.json     {\"p_y_given_x\": [[...], ...]}            rows x, columns y
  P.json     {\"labels\": [...], \"p\": [...]}            prior of X; S = X
  J.json     {\"secret_labels\": [...], \"labels\": [...], \"p_sx\": [[...], ...]}
             joint of S (rows) and X (columns); labels are optional
             or, for a multi-attribute X, \"attributes\": [{\"labels\": [...]}, ...]
             instead of labels, columns the tuples in row-major order
  PS.json    {\"labels\": [...], \"priors\": [[...], ...]}  a set of priors of X
  D.json     {\"d\": [[...], ...]}                      distortion d[x][y], >= 0
  C.json     {\"counts\": [...]}  counts per output y, in output-label order, or
             {\"counts\": {\"LABEL\": count, ...}}  keyed by output label (missing = 0);
             unary encoding: {\"counts\": [ones per bit], \"n\": REPORTS}
  Labels are optional everywhere (default \"0\", \"1\", ...).

Exit codes: 0 success, 1 invalid input or I/O failure, 2 usage error.
Errors are printed to stderr as `privlift: error[CODE]: MESSAGE`.
";

/// A failure of one invocation.
#[derive(Debug)]
pub enum CliError {
    /// The command line is wrong (exit code 2, code `invalid_argument`).
    Usage(String),
    /// The library or the file system refused (exit code 1). `context` names the file.
    Lib { context: Option<String>, error: privlift::Error },
    /// A refusal the command already reported on stdout (exit code 1, nothing on stderr).
    Reported,
}

impl CliError {
    pub fn usage(msg: impl Into<String>) -> Self {
        CliError::Usage(msg.into())
    }

    /// A library error about the content of `path`.
    pub fn in_file(path: &str, error: privlift::Error) -> Self {
        CliError::Lib { context: Some(path.to_string()), error }
    }

    /// An I/O failure (code `io`); `what` names the path or address.
    pub fn io(what: impl std::fmt::Display, e: std::io::Error) -> Self {
        CliError::Lib { context: None, error: privlift::Error::Io { message: format!("{what}: {e}") } }
    }

    fn code(&self) -> &'static str {
        match self {
            CliError::Usage(_) => "invalid_argument",
            CliError::Lib { error, .. } => error.code(),
            CliError::Reported => "reported",
        }
    }

    fn exit_code(&self) -> u8 {
        match self {
            CliError::Usage(_) => 2,
            CliError::Lib { .. } | CliError::Reported => 1,
        }
    }

    fn report(&self) {
        let code = self.code();
        let msg = match self {
            CliError::Reported => return,
            CliError::Usage(m) => format!("{m}\nRun `privlift --help` for usage."),
            CliError::Lib { context: Some(c), error } => format!("{c}: {error}"),
            CliError::Lib { context: None, error } => error.to_string(),
        };
        // Nothing sensible is left to do if stderr itself is gone.
        let _ = writeln!(std::io::stderr().lock(), "privlift: error[{code}]: {msg}");
    }
}

impl From<privlift::Error> for CliError {
    fn from(error: privlift::Error) -> Self {
        CliError::Lib { context: None, error }
    }
}

/// Writes `text` to stdout and flushes (no panic on a closed pipe, unlike `println!`).
pub fn print_stdout(text: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes()).and_then(|()| out.flush()).map_err(|e| CliError::io("cannot write to stdout", e))
}

fn run(argv: &[String]) -> Result<(), CliError> {
    let Some(first) = argv.first() else {
        return Err(CliError::usage("no command given"));
    };
    let rest = &argv[1..];
    match first.as_str() {
        "audit" => audit::run(rest),
        "bound" => bound::run(rest),
        "design" => design::run(rest),
        "estimate" => estimate::run(rest),
        "collect" => collect::run(rest),
        "simulate" => collect::simulate::run(rest),
        "receipt" => receipt::run(rest),
        "gaussian" => continuous::gaussian(rest),
        "laplace" => continuous::laplace(rest),
        "sampling" => continuous::sampling(rest),
        "serve" => serve::run(rest),
        "verify" => verify::run(rest),
        "help" | "--help" | "-h" => match rest.first() {
            Some(cmd) => help::print(cmd),
            None => print_stdout(HELP),
        },
        "--version" | "-V" | "version" => print_stdout(&format!("privlift {}\n", env!("CARGO_PKG_VERSION"))),
        other if other.starts_with('-') => Err(CliError::usage(format!("unknown option `{other}`"))),
        other => Err(CliError::usage(format!(
            "unknown command `{other}` (expected `audit`, `bound`, `collect`, `design`, `estimate`, `gaussian`, `laplace`, \
             `receipt`, `sampling`, `serve`, `simulate`, `verify` or `help`)"
        ))),
    }
}

fn main() -> ExitCode {
    let mut argv = Vec::new();
    for a in std::env::args_os().skip(1) {
        match a.into_string() {
            Ok(s) => argv.push(s),
            Err(a) => {
                let e = CliError::usage(format!("argument {a:?} is not valid UTF-8"));
                e.report();
                return ExitCode::from(e.exit_code());
            }
        }
    }
    match run(&argv) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            e.report();
            ExitCode::from(e.exit_code())
        }
    }
}
