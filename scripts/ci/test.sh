#!/usr/bin/env bash
# scripts/ci/test.sh: the README's test command, `cargo test`. Where the validators are
# installed (scripts/ci/install-tools.sh), the tests that drive Chromium must run rather than
# skip: VATCAR_REQUIRE_BROWSER=1 turns their skip into a failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ -d tests/validators/node_modules/playwright-core ]; then
  export VATCAR_REQUIRE_BROWSER=1
fi
cargo test --locked
