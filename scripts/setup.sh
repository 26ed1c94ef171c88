#!/usr/bin/env bash
# Installs, idempotently, every Debian package that building Strata and running
# its tests needs. Safe to run again: apt-get skips what is already installed.
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
  echo "setup.sh: must run as root (it installs Debian packages)" >&2
  exit 2
fi

packages=(
  # toolchain
  build-essential g++-12 cmake ninja-build pkg-config git clang clang-format clang-tidy
  libclang-rt-14-dev
  # libraries the broker links
  librocksdb-dev liburing-dev libboost-dev libprotobuf-dev protobuf-compiler
  libspdlog-dev libfmt-dev zlib1g-dev libsnappy-dev liblz4-dev libzstd-dev
  libcli11-dev nlohmann-json3-dev librdkafka-dev
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev python3 procps
)

export DEBIAN_FRONTEND=noninteractive
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  apt-get update
  apt-get install -y --no-install-recommends "${missing[@]}"
fi
