// A Kafka Streams application against a broker, driven by
// tests/integration/test_kafka_streams.py: input records "<account>:<amount>"
// are regrouped by account (a repartition topic) and summed into the state
// store "totals" (its changelog a compacted topic), each new total written to
// the output topic; processing.guarantee=exactly_once_v2.
//
//   java -cp '<cache>/lib/*' tests/java/StreamsCheck.java run <bootstrap> <app-id> <state-dir> <in> <out> <rf>
//   java ... query <bootstrap> <app-id> <state-dir> <in> <out> <rf>
//
// `run` processes until killed, printing "RESULT {"state":...}" at each
// state change. `query` starts an instance, waits until it runs (its store
// restored from the changelog), prints the store's contents as
// "RESULT {"store":{...}}" and exits.
import java.time.Duration;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

public class StreamsCheck {
  static void result(String json) {
    System.out.println("RESULT " + json);
    System.out.flush();
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 7 || !(args[0].equals("run") || args[0].equals("query"))) {
      System.err.println("usage: StreamsCheck run|query <bootstrap> <app-id> <state-dir> <in> <out> <rf>");
      System.exit(2);
    }
    String mode = args[0];
    Properties p = new Properties();
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[1]);
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, args[2]);
    p.put(StreamsConfig.STATE_DIR_CONFIG, args[3]);
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, Integer.parseInt(args[6]));
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
    // A killed instance leaves the group after 6 s, not the default 45.
    p.put(StreamsConfig.consumerPrefix("session.timeout.ms"), 6000);
    p.put(StreamsConfig.consumerPrefix("heartbeat.interval.ms"), 1500);

    StreamsBuilder b = new StreamsBuilder();
    b.stream(args[4], Consumed.with(Serdes.String(), Serdes.String()))
        .groupBy((k, v) -> v.split(":")[0], Grouped.with(Serdes.String(), Serdes.String()))
        .aggregate(() -> 0L, (account, v, sum) -> sum + Long.parseLong(v.split(":")[1]),
            Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as("totals")
                .withKeySerde(Serdes.String())
                .withValueSerde(Serdes.Long()))
        .toStream()
        .to(args[5], Produced.with(Serdes.String(), Serdes.Long()));

    KafkaStreams streams = new KafkaStreams(b.build(), p);
    CountDownLatch running = new CountDownLatch(1);
    streams.setStateListener((now, before) -> {
      result("{\"state\":\"" + now + "\"}");
      if (now == KafkaStreams.State.RUNNING) running.countDown();
    });
    streams.setUncaughtExceptionHandler(e -> {
      System.err.println("stream thread failed: " + e);
      e.printStackTrace();
      return org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler
          .StreamThreadExceptionResponse.REPLACE_THREAD;
    });
    streams.start();
    if (mode.equals("run")) {
      Runtime.getRuntime().addShutdownHook(new Thread(() -> streams.close(Duration.ofSeconds(30))));
      Thread.currentThread().join();
    }
    if (!running.await(120, TimeUnit.SECONDS)) {
      System.err.println("the instance did not reach RUNNING");
      System.exit(1);
    }
    ReadOnlyKeyValueStore<String, Long> store = null;
    for (int i = 0; store == null; i++) {
      try {
        store = streams.store(
            StoreQueryParameters.fromNameAndType("totals", QueryableStoreTypes.keyValueStore()));
      } catch (org.apache.kafka.streams.errors.InvalidStateStoreException e) {
        // Still restoring: RUNNING is reached once, the store a moment later.
        if (i > 1200) throw e;
        Thread.sleep(100);
      }
    }
    TreeMap<String, Long> all = new TreeMap<>();
    try (KeyValueIterator<String, Long> it = store.all()) {
      while (it.hasNext()) {
        KeyValue<String, Long> kv = it.next();
        all.put(kv.key, kv.value);
      }
    }
    StringBuilder j = new StringBuilder("{");
    all.forEach((k, v) -> {
      if (j.length() > 1) j.append(',');
      j.append('"').append(k).append("\":").append(v);
    });
    result("{\"store\":" + j.append('}') + "}");
    streams.close(Duration.ofSeconds(30));
    System.exit(0);
  }
}
