#!/usr/bin/env bash
# Installs, idempotently, every Debian package that building Strata needs;
# with --tests also what the test suite needs (Kafka clients, Node.js and
# the npm packages of the kafkajs tests, a JDK with Apache Kafka's Java
# client and tools in a cache outside the repository (bench/fetch_kafka.sh),
# a current confluent-kafka-python from PyPI in a virtual environment there,
# the Redis and NATS servers the strata-bench drivers are tested against,
# the etcd server the etcd metadata store is tested against); with --cluster
# the etcd server a cluster (scripts/cluster.sh) runs on; with --bench what
# the comparison in bench/compare.sh needs on top, Apache Kafka's broker
# among it (the same cache). Safe to run again.
#
#   scripts/setup.sh            # build dependencies
#   scripts/setup.sh --cluster  # and etcd-server
#   scripts/setup.sh --tests    # and test dependencies
#   scripts/setup.sh --bench    # and the comparison's servers and tools
set -euo pipefail
cd "$(dirname "$0")/.."
with_tests=0
with_bench=0
with_cluster=0
case "${1:-}" in
  "") ;;
  --cluster) with_cluster=1 ;;
  --tests) with_tests=1 ;;
  --bench) with_tests=1; with_bench=1 ;;
  *) echo "setup.sh: unknown option '$1' (--cluster, --tests or --bench)" >&2; exit 2 ;;
esac

if [ "$(id -u)" -ne 0 ]; then
  echo "setup.sh: must run as root (it installs Debian packages)" >&2
  exit 2
fi

packages=(
  # toolchain
  build-essential g++-12 cmake ninja-build pkg-config git clang clang-format clang-tidy
  libclang-rt-14-dev
  # libraries the broker links
  librocksdb-dev liburing-dev libboost-dev libprotobuf-dev libprotoc-dev protobuf-compiler
  libspdlog-dev libfmt-dev zlib1g-dev libsnappy-dev liblz4-dev libzstd-dev
  libcli11-dev nlohmann-json3-dev librdkafka-dev libxxhash-dev libre2-dev
  # the etcd metadata store's client (gRPC, and protoc's gRPC plugin)
  libgrpc++-dev protobuf-compiler-grpc
  # strata-bench's drivers and workload files
  libhiredis-dev libnats-dev libyaml-cpp-dev
  # unit tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev python3 procps
)
if [ "$with_tests" = 1 ]; then
  packages+=(
    # real Kafka clients for the integration tests
    kcat python3-confluent-kafka python3-kafka
    # the schema registry tests: the serializers' own dependencies
    python3-requests python3-jsonschema python3-protobuf python3-avro
    # libFuzzer targets
    clang libclang-rt-14-dev
    # the systems strata-bench's drivers are tested against
    redis-server nats-server
    # the etcd the etcd metadata store's tests start
    etcd-server
    # packet filters: the replication tests cut brokers off on loopback
    iptables
    # Apache Kafka's Java client (tests/java, fetched from Maven Central by
    # bench/fetch_kafka.sh), run by the JDK's source launcher
    openjdk-17-jdk-headless maven
    # the virtual environment of the PyPI confluent-kafka
    python3-venv
  )
  command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)
fi

if [ "$with_cluster" = 1 ]; then
  packages+=(etcd-server)
fi

if [ "$with_bench" = 1 ]; then
  # the machine's limits (loopback TCP, disk), a profiler, the timeline
  # plots, and Java and Maven for Apache Kafka (bench/kafka.sh)
  packages+=(iperf3 linux-perf coreutils python3-matplotlib default-jre-headless maven)
fi

export DEBIAN_FRONTEND=noninteractive
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  apt-get update
  apt-get install -y --no-install-recommends "${missing[@]}"
fi

if [ "$with_tests" = 1 ] && [ -f tests/integration/kafkajs/package-lock.json ]; then
  (cd tests/integration/kafkajs && npm ci --no-audit --no-fund --loglevel=error)
fi

if [ "$with_tests" = 1 ]; then
  bench/fetch_kafka.sh >/dev/null
  # A current confluent-kafka-python from PyPI (with its own librdkafka)
  # beside Debian's older one: the suite runs its Python tests with both
  # (tests/CMakeLists.txt). Its virtual environment sees Debian's packages.
  venv=/var/cache/strata/pypi-venv
  if ! "$venv/bin/python" -c 'import confluent_kafka, confluent_kafka.schema_registry, sys; sys.exit(confluent_kafka.libversion()[1] < 0x020c0000)' 2>/dev/null; then
    rm -rf "$venv"
    /usr/bin/python3 -m venv --system-site-packages "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check \
      'confluent-kafka[schemaregistry,avro,json,protobuf]>=2.12'
  fi
fi
