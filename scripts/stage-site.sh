#!/usr/bin/env bash
# Stages the demo site into target/site: www/ plus the built npm package under privlift/
# (the page imports ./privlift/js/privlift.js exactly as a web app imports the package),
# and the local curator's mechanism documents, designed here by the `privlift` CLI from
# the synthetic priors in data/priors/ (see data/README.md).
# Needs pkg/, pkg-open/, pkg-continuous/, pkg-design/ (scripts/build-wasm.sh) and target/release/privlift, or the
# binary PRIVLIFT_CLI names (scripts/test.sh: the one its native tests built).
set -euo pipefail
cd "$(dirname "$0")/.."
cli=${PRIVLIFT_CLI:-target/release/privlift}
[ -f pkg/privlift_bg.wasm ] && [ -f pkg-open/privlift_open_bg.wasm ] && [ -f pkg-continuous/privlift_continuous_bg.wasm ] &&
  [ -f pkg-design/privlift_design_bg.wasm ] ||
  { echo "stage-site: pkg/, pkg-open/, pkg-continuous/ or pkg-design/ is missing; run scripts/build-wasm.sh" >&2; exit 1; }
[ -x "$cli" ] || { echo "stage-site: $cli is missing; cargo build --release -p privlift-cli" >&2; exit 1; }
rm -rf target/site
mkdir -p target/site/privlift/pkg target/site/privlift/pkg-open target/site/privlift/pkg-continuous target/site/privlift/pkg-design
cp -r www/. target/site/
cp -r js target/site/privlift/
cp pkg/privlift.js pkg/privlift_bg.wasm target/site/privlift/pkg/
cp pkg-open/privlift_open.js pkg-open/privlift_open_bg.wasm target/site/privlift/pkg-open/
cp pkg-continuous/privlift_continuous.js pkg-continuous/privlift_continuous_bg.wasm target/site/privlift/pkg-continuous/
cp pkg-design/privlift_design.js pkg-design/privlift_design_bg.wasm target/site/privlift/pkg-design/

m=target/site/mechanisms
"$cli" design krr --prior data/priors/grade.json --epsilon 1 --id grade-krr >"$m/grade-krr.json"
"$cli" design rr-lip --prior data/priors/grade.json --epsilon 1 --id grade-rr-lip >"$m/grade-rr-lip.json"
"$cli" design krr --joint data/priors/age-retired.json --epsilon 1.5 --id age-retired-krr >"$m/age-retired-krr.json"
"$cli" design linear-markov --joint data/priors/age-retired.json --alpha 0.5 --id age-retired-linear >"$m/age-retired-linear.json"
"$cli" design orr-lip --joint data/priors/age-retired.json --epsilon 1 --id age-retired-orr >"$m/age-retired-orr.json"
"$cli" design orr-alip --joint data/priors/age-retired.json --eps-l 1 --eps-u 0.5 --id age-retired-aorr >"$m/age-retired-aorr.json"
# Salaries: a GMM prior fitted (EM + BIC) to synthetic samples, three continuous designs.
salary=(--samples data/priors/salary-samples.csv --epsilon 1 --domain 15000,240000 --step 1000)
"$cli" design gaussian-lip "${salary[@]}" --delta 1e-5 --id salary-gaussian-lip >"$m/salary-gaussian-lip.json"
"$cli" design laplace-lip "${salary[@]}" --id salary-laplace-lip >"$m/salary-laplace-lip.json"
"$cli" design analytic-gaussian "${salary[@]}" --delta 1e-5 --id salary-analytic-gaussian >"$m/salary-analytic-gaussian.json"
# Free text (an open domain of UTF-8 strings): a favourite fruit, OLH under a sparse prior,
# and prefix-extension heavy hitters; the synthetic population answers from fruit-answers.json.
fruit=(--domain strings --max-bytes 12)
"$cli" design olh --epsilon 2 "${fruit[@]}" --prior data/priors/fruit.json --id fruit-olh >"$m/fruit-olh.json"
"$cli" design heavy-hitters --epsilon 4 --max-bytes 12 --id fruit-heavy-hitters >"$m/fruit-heavy-hitters.json"
# Each entry: the document, and how the page may redesign it in the browser (slider).
node - "$m" <<'JS'
const fs = require('node:fs');
const dir = process.argv[2];
const prior = (f) => JSON.parse(fs.readFileSync(`data/priors/${f}`, 'utf8'));
const index = { mechanisms: [
  { file: 'grade-krr.json', attribute: 'grade', title: 'Final grade (0–20), k-ary randomised response, ε-LDP',
    method: 'krr', param: 'epsilon', value: 1, min: 0.1, max: 5, request: { prior: prior('grade.json') } },
  { file: 'grade-rr-lip.json', attribute: 'grade', title: 'Final grade (0–20), prior-aware randomised response, ε-LIP',
    method: 'rr-lip', param: 'epsilon', value: 1, min: 0.1, max: 5, request: { prior: prior('grade.json') } },
  { file: 'age-retired-krr.json', attribute: 'age', title: 'Age bracket; secret = retired? k-RR, ε-LDP',
    method: 'krr', param: 'epsilon', value: 1.5, min: 0.1, max: 5, request: { joint: prior('age-retired.json') } },
  { file: 'age-retired-linear.json', attribute: 'age', title: 'Age bracket; secret = retired? linear reduction (Markov), α',
    method: 'linear-markov', param: 'alpha', value: 0.5, min: 0.05, max: 1, request: { joint: prior('age-retired.json') } },
  { file: 'age-retired-orr.json', attribute: 'age', title: 'Age bracket; secret = retired? optimal random response (ORR), ε-LIP',
    method: 'orr-lip', param: 'epsilon', value: 1, min: 0.1, max: 3, request: { joint: prior('age-retired.json') } },
  { file: 'age-retired-aorr.json', attribute: 'age', title: 'Age bracket; secret = retired? asymmetric ORR (AORR), εl = 1, εu = 0.5',
    method: 'orr-alip', param: 'eps_u', value: 0.5, min: 0.05, max: 2, request: { joint: prior('age-retired.json'), eps_l: 1 } },
  { file: 'age-krr.json', attribute: 'age', title: 'Age bracket, k-RR ε = 1 (a static document)' },
  { file: 'lying.json', attribute: 'age', title: 'A lying curator (claims ε = 1, uses ε = 3)' },
], continuous: [
  { file: 'salary-gaussian-lip.json', title: 'Gaussian noise, (ε, δ)-LIP', policy: { lip: { eps: 1, delta: 1e-5 } } },
  { file: 'salary-laplace-lip.json', title: 'Laplace noise, ε-LIP', policy: { lip: { eps: 1 } } },
  { file: 'salary-analytic-gaussian.json', title: 'Gaussian noise, (ε, δ)-LDP (baseline)', policy: { ldp: { eps: 1, delta: 1e-5 } } },
], open: [
  { file: 'fruit-olh.json', attribute: 'fruit', title: 'Favourite fruit, optimal local hashing (OLH), ε-LDP, sparse prior' },
], heavyHitters: [
  { file: 'fruit-heavy-hitters.json', attribute: 'fruit', title: 'Favourite fruit, prefix-extension heavy hitters (PEM)', top: 10 },
] };
fs.writeFileSync(`${dir}/index.json`, JSON.stringify(index, null, 1));
// `privlift simulate --population`: the open-domain documents' users answer from the
// synthetic population, not from a prior (the heavy-hitter document has none).
const answers = JSON.parse(fs.readFileSync('data/priors/fruit-answers.json', 'utf8'));
fs.writeFileSync(`${dir}/../population.json`, JSON.stringify({ 'fruit-olh': answers, 'fruit-heavy-hitters': answers }));
JS
echo target/site
