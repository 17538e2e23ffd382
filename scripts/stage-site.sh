#!/usr/bin/env bash
# Stages the demo site into target/site: www/ plus the built npm package under privlift/
# (the page imports ./privlift/js/privlift.js exactly as a web app imports the package).
# Needs pkg/ (scripts/build-wasm.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f pkg/privlift_bg.wasm ] && [ -f pkg-design/privlift_design_bg.wasm ] || { echo "stage-site: pkg/ is missing; run scripts/build-wasm.sh" >&2; exit 1; }
rm -rf target/site
mkdir -p target/site/privlift/pkg target/site/privlift/pkg-design
cp -r www/. target/site/
cp -r js target/site/privlift/
cp pkg/privlift.js pkg/privlift_bg.wasm target/site/privlift/pkg/
cp pkg-design/privlift_design.js pkg-design/privlift_design_bg.wasm target/site/privlift/pkg-design/
echo target/site
