// Apache Kafka's Java client against a broker, driven by
// tests/integration/test_java_client.py. One source file, run by the JDK's
// source launcher with the client's jars (bench/fetch_kafka.sh) on the class
// path:
//
//   java -cp '<cache>/lib/*' tests/java/ClientCheck.java produce <bootstrap> <topic> <count> <codec>
//   java ... consume <bootstrap> <topic> <group> <expected> <eager|cooperative> <isolation>
//   java ... transactions <bootstrap> <topic> <txn-id> <count>
//
// Each prints what it saw as lines beginning "RESULT " (one JSON object
// each) on stdout, for the test to check; the client's own log goes to
// stderr. Exit status 0 unless the client threw.
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class ClientCheck {
  // An upper bound on waiting for records that should arrive; the test
  // checks what arrived, never how fast.
  static final Duration CONSUME_DEADLINE = Duration.ofSeconds(60);

  public static void main(String[] args) throws Exception {
    switch (args.length > 0 ? args[0] : "") {
      case "produce" -> produce(args[1], args[2], Integer.parseInt(args[3]), args[4]);
      case "consume" ->
          consume(args[1], args[2], args[3], Integer.parseInt(args[4]), args[5], args[6]);
      case "transactions" -> transactions(args[1], args[2], args[3], Integer.parseInt(args[4]));
      default -> {
        System.err.println("usage: ClientCheck produce|consume|transactions ...");
        System.exit(2);
      }
    }
  }

  static String quote(String s) {
    if (s == null) return "null";
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') b.append('\\');
      b.append(c);
    }
    return b.append('"').toString();
  }

  static void result(String json) {
    System.out.println("RESULT " + json);
    System.out.flush();
  }

  // The producer with the client's defaults: acks=all and idempotence on.
  static void produce(String bootstrap, String topic, int count, String codec) throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    AtomicInteger acked = new AtomicInteger();
    AtomicInteger failed = new AtomicInteger();
    AtomicReference<String> firstError = new AtomicReference<>();
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
      for (int i = 0; i < count; i++) {
        ProducerRecord<String, String> r =
            new ProducerRecord<>(topic, "k" + i, "v" + i + "-" + codec + "-" + "x".repeat(i % 200));
        r.headers().add("seq", Integer.toString(i).getBytes(StandardCharsets.UTF_8));
        r.headers().add("codec", codec.getBytes(StandardCharsets.UTF_8));
        producer.send(r, (md, e) -> {
          if (e == null) {
            acked.incrementAndGet();
          } else {
            failed.incrementAndGet();
            firstError.compareAndSet(null, e.toString());
          }
        });
      }
      producer.flush();
    }
    result("{\"acked\":" + acked.get() + ",\"failed\":" + failed.get()
        + ",\"first_error\":" + quote(firstError.get()) + "}");
  }

  static void consume(String bootstrap, String topic, String group, int expected,
      String strategy, String isolation) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
    p.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
        strategy.equals("cooperative") ? CooperativeStickyAssignor.class.getName()
                                       : RangeAssignor.class.getName());
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    List<ConsumerRecord<String, String>> seen = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
      consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> parts) {
          result("{\"revoked\":" + parts.size() + "}");
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> parts) {
          result("{\"assigned\":" + parts.size() + "}");
        }
      });
      long deadline = System.nanoTime() + CONSUME_DEADLINE.toNanos();
      while (seen.size() < expected && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200)))
          seen.add(r);
      }
      // Whatever else is there arrives too (nothing, when the test is right).
      for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500)))
        seen.add(r);
      consumer.commitSync();
      for (ConsumerRecord<String, String> r : seen) {
        StringBuilder h = new StringBuilder("{");
        for (Header header : r.headers()) {
          if (h.length() > 1) h.append(',');
          h.append(quote(header.key())).append(':')
              .append(quote(new String(header.value(), StandardCharsets.UTF_8)));
        }
        h.append('}');
        result("{\"partition\":" + r.partition() + ",\"offset\":" + r.offset()
            + ",\"key\":" + quote(r.key()) + ",\"value\":" + quote(r.value())
            + ",\"headers\":" + h + "}");
      }
      result("{\"consumed\":" + seen.size() + "}");
    }
  }

  // One committed transaction, one aborted, one committed, `count` records
  // each: values c1-<i>, a-<i>, c2-<i>.
  static void transactions(String bootstrap, String topic, String txnId, int count) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, txnId);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
      producer.initTransactions();
      for (String kind : List.of("c1", "a", "c2")) {
        producer.beginTransaction();
        for (int i = 0; i < count; i++)
          producer.send(new ProducerRecord<>(topic, "k" + i, kind + "-" + i));
        if (kind.equals("a")) {
          // Written first: an abort drops what the client has not sent yet.
          producer.flush();
          producer.abortTransaction();
        } else {
          producer.commitTransaction();
        }
        result("{\"ended\":" + quote(kind) + "}");
      }
    }
  }
}
