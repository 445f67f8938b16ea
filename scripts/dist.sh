#!/usr/bin/env bash
# Builds the release archive of vatcar-site for one target into target/dist/ and rewrites
# target/dist/SHA256SUMS over every archive there. The release workflow runs it on each runner;
# on Linux it is also run by .ci/run, which checks the binary it packs.
#
#   scripts/dist.sh [TARGET]   TARGET defaults to x86_64-unknown-linux-gnu
#   scripts/dist.sh --sums DIR only (re)write DIR/SHA256SUMS over the archives in DIR
#
# Linux targets are linked against glibc 2.17 with cargo-zigbuild (`pip install cargo-zigbuild
# ziglang`), so the binary runs on any distribution from 2014 on, whatever glibc the building
# machine has; other targets are built natively with cargo.
set -euo pipefail
cd "$(dirname "$0")/.."

# Oldest glibc the Linux binaries need: GLIBC_2.17 is also the floor of Rust's own std.
glibc=2.17
dist=${DIST_DIR:-target/dist}

sha256() {
  if command -v sha256sum >/dev/null; then sha256sum -- "$@"; else shasum -a 256 -- "$@"; fi
}

write_sums() (
  cd "$1"
  shopt -s nullglob
  archives=(vatcar-site-*.tar.gz vatcar-site-*.zip)
  if [ ${#archives[@]} -eq 0 ]; then
    echo "error: no vatcar-site archives in $1" >&2
    exit 1
  fi
  sha256 "${archives[@]}" >SHA256SUMS.tmp
  mv SHA256SUMS.tmp SHA256SUMS
)

if [ "${1-}" = --sums ]; then
  write_sums "${2:?usage: scripts/dist.sh --sums DIR}"
  cat "$2/SHA256SUMS"
  exit 0
fi

target=${1:-x86_64-unknown-linux-gnu}
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
name="vatcar-site-$version-$target"
exe=vatcar-site
case "$target" in
  *-windows-*) exe=vatcar-site.exe ;;
esac

case "$target" in
  *-linux-gnu)
    if ! command -v cargo-zigbuild >/dev/null; then
      echo "error: cargo-zigbuild is missing: pip install --require-hashes -r scripts/ci/requirements-release.txt" >&2
      exit 1
    fi
    cargo zigbuild --locked --release --target "$target.$glibc"
    ;;
  *)
    cargo build --locked --release --target "$target"
    ;;
esac

binary="${CARGO_TARGET_DIR:-target}/$target/release/$exe"
case "$target" in
  *-linux-gnu)
    # readelf reads any architecture's ELF (objdump only the host's).
    newest=$(readelf -W --dyn-syms "$binary" | grep -o 'GLIBC_[0-9][0-9.]*' | sort -u -V | tail -n 1)
    echo "$binary: newest glibc symbol $newest"
    if [ "$(printf '%s\n' "$newest" "GLIBC_$glibc" | sort -V | tail -n 1)" != "GLIBC_$glibc" ]; then
      echo "error: $binary needs $newest, newer than glibc $glibc" >&2
      exit 1
    fi
    ;;
esac

# The kill tests' pause (src/publish/test_pause.rs) is compiled into debug builds only: a
# release whose environment could stop a publication half-way must never ship.
if grep -q -a 'VATCAR_SITE_TEST_' "$binary"; then
  echo "error: $binary names the test pause's variables (VATCAR_SITE_TEST_*), which only debug builds may have" >&2
  exit 1
fi

stage="$dist/stage/$name"
rm -rf "$stage"
mkdir -p "$stage"
cp "$binary" README.md LICENSE "$stage/"
case "$target" in
  *-windows-*)
    archive="$name.zip"
    # Python is on every runner; Git Bash on Windows has no zip.
    py=$(command -v python3 || command -v python)
    (cd "$dist/stage" && "$py" -m zipfile -c "../$archive" "$name")
    ;;
  *)
    archive="$name.tar.gz"
    tar -C "$dist/stage" -czf "$dist/$archive" "$name"
    ;;
esac
rm -rf "$dist/stage"
write_sums "$dist"
echo "$dist/$archive"
