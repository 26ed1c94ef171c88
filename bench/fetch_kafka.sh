#!/usr/bin/env bash
# Fetches the newest Apache Kafka 4.x broker that Maven Central serves
# (org.apache.kafka:kafka_2.13 and its runtime dependencies: the KRaft
# server, the storage formatter; org.apache.kafka:kafka-tools of the same
# version: the command-line tools' main classes, the producer perf test
# among them; org.apache.kafka:kafka-streams, for the Streams tests; log4j2
# behind slf4j so the broker's own log is readable) into a cache outside the
# repository. Nothing of Kafka is ever committed. bench/kafka.sh runs what
# this leaves there; the Java tests (tests/java) take their class path here.
#
#   bench/fetch_kafka.sh            # fetch once; later calls reuse the cache
#   bench/fetch_kafka.sh --refresh  # resolve the newest 4.x again
#
# Cache: $STRATA_KAFKA_CACHE (default /var/cache/strata/kafka): lib/*.jar and
# VERSION. Prints the cache directory as its last line.
set -euo pipefail
cache=${STRATA_KAFKA_CACHE:-/var/cache/strata/kafka}
refresh=0
case "${1:-}" in
  "") ;;
  --refresh) refresh=1 ;;
  *) echo "fetch_kafka.sh: unknown option '$1' (only --refresh)" >&2; exit 2 ;;
esac

# A cache from before the tools or Streams were fetched lacks them: fetch again.
if [ "$refresh" = 0 ] && [ -s "$cache/VERSION" ] &&
  compgen -G "$cache/lib/kafka-tools-[0-9]*.jar" >/dev/null &&
  compgen -G "$cache/lib/kafka-streams-[0-9]*.jar" >/dev/null; then
  echo "$cache"
  exit 0
fi
command -v mvn >/dev/null || { echo "fetch_kafka.sh: needs Maven (apt-get install maven)" >&2; exit 1; }
command -v java >/dev/null || { echo "fetch_kafka.sh: needs Java 17 or newer" >&2; exit 1; }

work=$(mktemp -d /tmp/strata-fetch-kafka-XXXXXX)
trap 'rm -rf "$work"' EXIT
# A version range makes Maven pick the newest 4.x release it is served.
cat >"$work/pom.xml" <<'EOF'
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>strata.bench</groupId>
  <artifactId>kafka-broker</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId>
      <version>[4.0.0,5.0.0)</version>
    </dependency>
    <dependency>
      <groupId>org.apache.kafka</groupId><artifactId>kafka-tools</artifactId>
      <version>[4.0.0,5.0.0)</version>
    </dependency>
    <dependency>
      <groupId>org.apache.kafka</groupId><artifactId>kafka-streams</artifactId>
      <version>[4.0.0,5.0.0)</version>
    </dependency>
    <dependency>
      <groupId>org.apache.logging.log4j</groupId><artifactId>log4j-slf4j2-impl</artifactId>
      <version>2.25.3</version>
    </dependency>
    <dependency>
      <groupId>org.slf4j</groupId><artifactId>slf4j-api</artifactId><version>2.0.17</version>
    </dependency>
  </dependencies>
</project>
EOF
(cd "$work" && mvn -q -B dependency:copy-dependencies -DincludeScope=runtime \
  -DoutputDirectory="$work/lib") >&2
jar=$(cd "$work/lib" && ls kafka_2.13-*.jar)
version=${jar#kafka_2.13-}
version=${version%.jar}
mkdir -p "$cache"
rm -rf "$cache/lib" "$cache/VERSION"
mv "$work/lib" "$cache/lib"
echo "$version" >"$cache/VERSION"
echo "fetch_kafka.sh: Apache Kafka $version in $cache" >&2
echo "$cache"
