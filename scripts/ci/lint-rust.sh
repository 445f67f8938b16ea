#!/usr/bin/env bash
# scripts/ci/lint-rust.sh: formatting and clippy (every target, warnings as errors), as CI
# runs them.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo fmt --all -- --check
cargo clippy --locked --all-targets -- -D warnings
