#!/usr/bin/env bash
# scripts/ci/archive.sh: the portable Linux archive (scripts/dist.sh: glibc 2.17 through
# cargo-zigbuild), its checksum, its contents and its binary checked; the binary is unpacked at
# target/ci/bin/vatcar-site, where the checks after it take it from, and the archive's path is
# written to target/ci/archive-path. Needs scripts/ci/install-tools.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PWD/target/ci/venv/bin:$PATH"
rm -rf target/dist
archive=$(bash scripts/dist.sh x86_64-unknown-linux-gnu | tail -n 1)
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
test "$archive" = "target/dist/vatcar-site-$version-x86_64-unknown-linux-gnu.tar.gz"
(cd target/dist && sha256sum -c SHA256SUMS)
rm -rf target/ci/unpacked && mkdir -p target/ci/unpacked
tar -xzf "$archive" -C target/ci/unpacked
unpacked="target/ci/unpacked/vatcar-site-$version-x86_64-unknown-linux-gnu"
test "$(ls "$unpacked")" = "$(printf '%s\n' LICENSE README.md vatcar-site)"
cmp README.md "$unpacked/README.md" && cmp LICENSE "$unpacked/LICENSE"
bin="$unpacked/vatcar-site"
newest=$(objdump -T "$bin" | grep -o 'GLIBC_[0-9][0-9.]*' | sort -u -V | tail -n 1)
echo "newest glibc symbol: $newest"
test "$(printf '%s\n' "$newest" GLIBC_2.17 | sort -V | tail -n 1)" = GLIBC_2.17
test "$("$bin" --version)" = "vatcar-site $version"
mkdir -p target/ci/bin
cp "$bin" target/ci/bin/vatcar-site
echo "$archive" >target/ci/archive-path
echo "archive: $archive"
