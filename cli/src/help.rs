//! The CLI's help: the one text `privlift --help` prints ([`HELP`]), and for
//! `privlift CMD --help` the part of it about one command — its usage lines, its
//! paragraph under "Commands:", the sections it reads (design methods, files) and the
//! exit codes. Cut out of the one help text, so the two never disagree.

use crate::error::CliError;
use crate::out::print_stdout;

/// Every command's usage, what it does, its files and the exit codes.
pub const HELP: &str = "\
privlift — curator tool for privlift mechanism documents

Usage:
  privlift audit DOC.json [--alpha-order A]
  privlift audit --matrix M.json (--prior P.json | --joint J.json) [--alpha-order A]
  privlift design METHOD [--prior P.json | --joint J.json | --priors PS.json]
                  [--epsilon E] [--alpha A] [--a A --b B] [--distortion D.json]
                  [--eps-l EL --eps-u EU] [--notion NOTION] [--alpha-order K] [--objective O] [--id ID]
  privlift estimate --doc DOC.json --counts C.json [--counts C2.json …] [--method mle|unbiased] [--project]
  privlift estimate --db URL --mechanism ID [--sha256 HEX] [--method mle|unbiased] [--project]
  privlift estimate --db URL --mechanism ID --candidates C.txt [--sha256 HEX]   (open domain)
  privlift heavy-hitters --db URL --mechanism ID --top K [--sha256 HEX]
  privlift collect --db URL --dir MECHANISMS_DIR [--port PORT] [--host HOST] [--public] [--threads N]
  privlift simulate --db URL --dir MECHANISMS_DIR --users N [--seed S] [--truth OUT.json]
                    [--population POP.json]
  privlift bound lip-to-ldp --epsilon E --pmin P
  privlift bound ldp-to-lip --epsilon E --pmin P
  privlift bound lip-to-ldp-exact --prior P.json --epsilon E
  privlift bound compose --prior P.json --matrix M1.json [--matrix M2.json ...]
  privlift bound transfer --p1 P1.json --p2 P2.json --matrix M.json --epsilon E
                          [--samples N --beta B]
  privlift receipt DOC.json (--output Y | --bits 0101...)
  privlift receipt DOC.json --output Y [--x X]       (continuous document)
  privlift receipt DOC.json --output REPORT          (open domain: \"s:y\" or {\"seed\", \"y\"}, …)
  privlift design METHOD (--prior P.json | --samples S.csv) --epsilon E [--delta D]
                  --domain L,U [--step G] [--components K] [--max-verify-work W] [--id ID]   (continuous)
  privlift design olh|hadamard|hcms --epsilon E --domain strings [--max-bytes B] [--prior P.json]
                  [--id ID]   (open domain)
  privlift design heavy-hitters --epsilon E --max-bytes B [--id ID]
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
            (--spec is another name of --doc.)
            A document with a declared secret adds \"secret\": P_S from its joint
            (with its own \"identified\" and \"interval\").
            --db URL --mechanism ID: the counts and the document a collector
            stored (the published version, or --sha256 HEX), plus \"sha256\"; a
            continuous document adds \"mean\" and \"mean_std_error\" (the
            estimate is then the lattice histogram, by EM deconvolution).
            --candidates C.txt (an open-domain document: olh, hadamard, hcms):
            the frequency of each value of C.txt (one a line) with its standard
            error: {\"labels\", \"estimate\", \"std_error\", \"n\", \"method\"}.
  heavy-hitters  The K most frequent values of a heavy-hitter document's
            reports, found without a dictionary by prefix extension (PEM):
            {\"values\", \"estimate\", \"std_error\", \"n\"} (estimates from the
            last round's users).
  collect   The curator's collector: serves the documents of MECHANISMS_DIR
            (GET /v1/mechanisms/ID, ETag = SHA-256), takes reports (POST
            /v1/reports {\"reports\": [{\"mechanism\", \"sha256\", \"output\",
            \"report_id\"}]} -> 202 {\"accepted\", \"duplicates\"}; a bad report
            refuses the whole batch: 400/404 {\"code\", \"message\"}) and answers
            GET /v1/estimates/ID as `estimate --db` does (an open domain:
            ?candidate=V&candidate=W…, or POST {\"candidates\": [...]}; heavy
            hitters: ?heavy_hitters&top=K). URL is sqlite:PATH
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
            --population POP.json ({\"ID\": {\"values\": [...], \"p\": [...]}}):
            the users of document ID draw from it instead of its prior (any
            kind; an open-domain document without a full prior needs one).
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
  receipt   Verify DOC.json as a client would (claims, exact sampler) and print
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

Open-domain design methods (values are strings of at most B UTF-8 bytes,
default 32, no U+0000; P.json {\"values\": [...], \"p\": [...]} may sum to < 1,
the rest being every unlisted value; claims ldp_x of the randomiser):
  olh            optimal local hashing, g = round(e^E) + 1
  hadamard       Hadamard response over 2^20 hashed buckets
  hcms           Hadamard count-mean sketch, k = 2048 hashes, m = 1024 columns
  heavy-hitters  prefix extension (PEM): OLH of the first byte, two, ... B
                 bytes, one round per byte, users split uniformly

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
  DOC.json   a mechanism document (format \"privlift-mechanism\", version 1)
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

/// Sections of the help text: a header line at column 0 and its indented lines.
fn sections() -> Vec<(&'static str, Vec<&'static str>)> {
    let mut out: Vec<(&str, Vec<&str>)> = Vec::new();
    for line in HELP.lines() {
        if !line.is_empty() && !line.starts_with(' ') {
            out.push((line, Vec::new()));
        } else if let Some((_, body)) = out.last_mut() {
            body.push(line);
        }
    }
    for (_, body) in &mut out {
        while body.last().is_some_and(|l| l.is_empty()) {
            body.pop();
        }
    }
    out
}

/// The help of `cmd` (`audit`, `design`, …), or `None` for an unknown command.
pub fn for_command(cmd: &str) -> Option<String> {
    let secs = sections();
    let usage_prefix = format!("  privlift {cmd} ");
    let mut out = String::new();
    out.push_str(secs.first()?.0);
    out.push_str("\n\nUsage:\n");
    // Usage lines of the command, with their continuation lines (deeper indent).
    let mut inside = false;
    for line in secs.iter().find(|(h, _)| *h == "Usage:")?.1.iter() {
        if line.starts_with("  privlift ") {
            inside = line.starts_with(&usage_prefix) || line.trim_end() == usage_prefix.trim_end();
        }
        if inside && !line.is_empty() {
            out.push_str(line);
            out.push('\n');
        }
    }
    if !out.contains(&usage_prefix) {
        return None;
    }
    // The command's paragraph: from "  cmd  …" to the next command at the same indent.
    out.push('\n');
    let mut inside = false;
    for line in secs.iter().find(|(h, _)| *h == "Commands:")?.1.iter() {
        let starts_command = line.len() > 2 && line.as_bytes()[2] != b' ' && line.starts_with("  ");
        if starts_command {
            inside = line[2..].split_whitespace().next() == Some(cmd);
        }
        if inside {
            out.push_str(line);
            out.push('\n');
        }
    }
    let extra: &[&str] = match cmd {
        "design" => &["Design methods", "Continuous design methods", "Open-domain design methods", "Files:"],
        "audit" | "estimate" | "bound" | "receipt" | "verify" | "laplace" => &["Files:"],
        _ => &[],
    };
    for (header, body) in secs.iter().filter(|(h, _)| extra.iter().any(|e| h.starts_with(e))) {
        out.push('\n');
        out.push_str(header);
        out.push('\n');
        for line in body {
            out.push_str(line);
            out.push('\n');
        }
    }
    out.push('\n');
    for (header, body) in secs.iter().filter(|(h, _)| h.starts_with("Exit codes") || h.starts_with("Errors")) {
        out.push_str(header);
        out.push('\n');
        for line in body.iter().filter(|l| !l.is_empty()) {
            out.push_str(line);
            out.push('\n');
        }
    }
    Some(out)
}

/// Prints the help of `cmd` (the whole help for an unknown one).
pub fn print(cmd: &str) -> Result<(), CliError> {
    print_stdout(&for_command(cmd).unwrap_or_else(|| HELP.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const COMMANDS: [&str; 13] = [
        "audit", "design", "estimate", "bound", "receipt", "verify", "gaussian", "laplace", "sampling", "serve",
        "collect", "simulate", "help",
    ];

    #[test]
    fn every_command_has_its_own_shorter_help() {
        for cmd in &COMMANDS[..12] {
            let h = for_command(cmd).unwrap_or_else(|| panic!("{cmd}: no help"));
            assert!(h.contains(&format!("privlift {cmd} ")), "{cmd}: {h}");
            assert!(h.lines().count() < HELP.lines().count() / 2 || *cmd == "design", "{cmd}: too long");
            assert!(h.contains("Exit codes"), "{cmd}");
            for other in COMMANDS[..12].iter().filter(|o| *o != cmd) {
                assert!(!h.contains(&format!("privlift {other} ")), "{cmd}'s help shows {other}: {h}");
            }
        }
        assert!(for_command("design").unwrap().contains("orr-lip"));
        assert!(for_command("verify").unwrap().contains("maxVerifyWork"));
        assert!(for_command("nonsense").is_none());
    }
}
