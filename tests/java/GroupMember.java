// One member of a consumer group, Apache Kafka's Java consumer, run as its
// own process by tests/integration/test_consumer_groups.py with the
// client's jars (bench/fetch_kafka.sh) on the class path:
//
//   java -cp '<cache>/lib/*' tests/java/GroupMember.java <bootstrap> <group> <protocol> \
//       <client-id> <topic>[,<topic>...]|re:<regex> [<instance-id>]
//
// "re:<regex>" subscribes with a SubscriptionPattern: the coordinator
// resolves the regular expression (KIP-848, consumer protocol only).
// <protocol> is "consumer" (KIP-848) or "classic". It prints the events
// tests/integration/group_member.py prints, one JSON object a line:
//
//   {"event": "started"}
//   {"event": "assign"|"revoke"|"lost", "delta": [[topic, partition], ...],
//    "assignment": [[topic, partition], ...], "incremental": true, "t": seconds}
//   {"event": "message", "topic", "partition", "offset", "value"}
//   {"event": "committed", "offsets": [[topic, partition, offset], ...]}
//   {"event": "commit_failed", "error": str}
//   {"event": "closed"}
//
// A line "close" on stdin (or its end) closes the consumer (leaving the
// group) and exits 0. The client's log goes to stderr.
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

public class GroupMember {
  static synchronized void emit(String json) {
    System.out.println(json);
    System.out.flush();
  }

  static String quote(String s) {
    if (s == null) return "null";
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') b.append('\\');
      if (c < 0x20) {
        b.append(String.format("\\u%04x", (int) c));
        continue;
      }
      b.append(c);
    }
    return b.append('"').toString();
  }

  static String partitions(Collection<TopicPartition> parts) {
    TreeSet<String> sorted = new TreeSet<>();
    for (TopicPartition tp : parts) sorted.add(quote(tp.topic()) + "," + tp.partition());
    StringBuilder b = new StringBuilder("[");
    for (String s : sorted) {
      if (b.length() > 1) b.append(',');
      b.append('[').append(s).append(']');
    }
    return b.append(']').toString();
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 5) {
      System.err.println("usage: GroupMember <bootstrap> <group> <consumer|classic> <client-id> "
          + "<topics> [<instance-id>]");
      System.exit(2);
    }
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, args[1]);
    p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, args[2]);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, args[3]);
    if (args.length > 5) p.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, args[5]);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "50");
    p.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, "2000");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    List<String> topics = Arrays.asList(args[4].split(","));

    AtomicBoolean closing = new AtomicBoolean();
    Thread stdin = new Thread(() -> {
      try {
        var in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in));
        String line;
        while ((line = in.readLine()) != null) {
          if (line.trim().equals("close")) break;
        }
      } catch (java.io.IOException e) {
        // end of input: close as for "close"
      }
      closing.set(true);
    });
    stdin.setDaemon(true);
    stdin.start();

    List<TopicPartition> ownedParts = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
      emit("{\"event\":\"started\"}");
      ConsumerRebalanceListener listener = new ConsumerRebalanceListener() {
        void change(String kind, Collection<TopicPartition> delta) {
          if (kind.equals("assign")) {
            ownedParts.addAll(delta);
          } else {
            ownedParts.removeAll(delta);
          }
          emit("{\"event\":\"" + kind + "\",\"delta\":" + partitions(delta) + ",\"assignment\":"
              + partitions(ownedParts) + ",\"incremental\":true,\"t\":"
              + System.currentTimeMillis() / 1000.0 + "}");
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> parts) {
          change("revoke", parts);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> parts) {
          change("assign", parts);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> parts) {
          change("lost", parts);
        }
      };
      if (args[4].startsWith("re:")) {
        consumer.subscribe(new SubscriptionPattern(args[4].substring(3)), listener);
      } else {
        consumer.subscribe(topics, listener);
      }
      while (!closing.get()) {
        Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
          emit("{\"event\":\"message\",\"topic\":" + quote(r.topic()) + ",\"partition\":"
              + r.partition() + ",\"offset\":" + r.offset() + ",\"value\":" + quote(r.value())
              + "}");
          next.put(new TopicPartition(r.topic(), r.partition()),
              new OffsetAndMetadata(r.offset() + 1));
        }
        if (next.isEmpty()) continue;
        try {
          consumer.commitSync(next);
          StringBuilder b = new StringBuilder("[");
          for (var e : next.entrySet()) {
            if (b.length() > 1) b.append(',');
            b.append('[').append(quote(e.getKey().topic())).append(',')
                .append(e.getKey().partition()).append(',').append(e.getValue().offset())
                .append(']');
          }
          emit("{\"event\":\"committed\",\"offsets\":" + b.append(']') + "}");
        } catch (Exception e) {
          emit("{\"event\":\"commit_failed\",\"error\":" + quote(e.toString()) + "}");
        }
      }
    }
    emit("{\"event\":\"closed\"}");
  }
}
