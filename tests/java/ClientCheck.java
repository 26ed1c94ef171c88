// Apache Kafka's Java client against a broker, driven by
// tests/integration/test_java_client.py. One source file, run by the JDK's
// source launcher with the client's jars (bench/fetch_kafka.sh) on the class
// path:
//
//   java -cp '<cache>/lib/*' tests/java/ClientCheck.java produce <bootstrap> <topic> <count> <codec>
//   java ... consume <bootstrap> <topic> <group> <expected> <eager|cooperative> <isolation>
//   java ... transactions <bootstrap> <topic> <txn-id> <count>
//   java ... admin <bootstrap> <topic>
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
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.DescribeProducersResult;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.config.ConfigResource;
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
      case "admin" -> admin(args[1], args[2]);
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

  static String offsetsJson(Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> m) {
    StringBuilder b = new StringBuilder("{");
    m.entrySet().stream().sorted((x, y) -> x.getKey().partition() - y.getKey().partition())
        .forEach(e -> {
          if (b.length() > 1) b.append(',');
          b.append('"').append(e.getKey().partition()).append("\":").append(e.getValue().offset());
        });
    return b.append('}').toString();
  }

  static Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> listOffsets(
      Admin admin, String topic, int partitions, OffsetSpec spec) throws Exception {
    Map<TopicPartition, OffsetSpec> ask = new java.util.HashMap<>();
    for (int p = 0; p < partitions; p++) ask.put(new TopicPartition(topic, p), spec);
    return admin.listOffsets(ask).all().get();
  }

  // The Admin calls Strata serves, each followed by the call that reads back
  // what it changed; one RESULT per step for the test to check.
  static void admin(String bootstrap, String topic) throws Exception {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(p)) {
      var cluster = admin.describeCluster();
      result("{\"step\":\"describeCluster\",\"nodes\":" + cluster.nodes().get().size()
          + ",\"controller\":" + cluster.controller().get().id() + ",\"cluster_id\":"
          + quote(cluster.clusterId().get()) + "}");

      admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1)
          .configs(Map.of("retention.ms", "86400000")))).all().get();
      TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
      result("{\"step\":\"createTopics\",\"listed\":" + admin.listTopics().names().get().contains(topic)
          + ",\"partitions\":" + d.partitions().size() + ",\"topic_id_set\":"
          + !d.topicId().toString().equals("AAAAAAAAAAAAAAAAAAAAAA") + "}");

      admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(4))).all().get();
      d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
      result("{\"step\":\"createPartitions\",\"partitions\":" + d.partitions().size() + "}");

      ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      admin.incrementalAlterConfigs(Map.of(res, List.of(
          new AlterConfigOp(new ConfigEntry("max.message.bytes", "200000"), AlterConfigOp.OpType.SET),
          new AlterConfigOp(new ConfigEntry("retention.ms", null), AlterConfigOp.OpType.DELETE))))
          .all().get();
      Config c = admin.describeConfigs(List.of(res)).all().get().get(res);
      result("{\"step\":\"incrementalAlterConfigs\",\"max.message.bytes\":"
          + quote(c.get("max.message.bytes").value()) + ",\"source\":"
          + quote(c.get("max.message.bytes").source().name()) + ",\"retention.ms\":"
          + quote(c.get("retention.ms").value()) + "}");

      Properties pp = new Properties();
      pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      pp.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "admin-check-txn");
      try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp)) {
        producer.initTransactions();
        producer.beginTransaction();
        for (int i = 0; i < 10; i++)
          producer.send(new ProducerRecord<>(topic, 0, 1_000_000L + i, "k" + i, "v" + i));
        producer.commitTransaction();
        // One left open, for the transaction listings below.
        producer.beginTransaction();
        producer.send(new ProducerRecord<>(topic, 1, "open", "open")).get();
        var txns = admin.listTransactions().all().get();
        TransactionListing mine = txns.stream()
            .filter(t -> t.transactionalId().equals("admin-check-txn")).findFirst().orElseThrow();
        var described = admin.describeTransactions(List.of("admin-check-txn")).all().get()
            .get("admin-check-txn");
        DescribeProducersResult producers =
            admin.describeProducers(List.of(new TopicPartition(topic, 1)));
        var active = producers.partitionResult(new TopicPartition(topic, 1)).get().activeProducers();
        result("{\"step\":\"transactions\",\"state\":" + quote(mine.state().toString())
            + ",\"described_state\":" + quote(described.state().toString())
            + ",\"topic_partitions\":" + described.topicPartitions().size()
            + ",\"same_producer\":" + (active.size() == 1
                && active.get(0).producerId() == mine.producerId()) + "}");
        producer.abortTransaction();
      }

      var earliest = listOffsets(admin, topic, 2, OffsetSpec.earliest());
      var latest = listOffsets(admin, topic, 2, OffsetSpec.latest());
      var maxTs = admin.listOffsets(Map.of(new TopicPartition(topic, 0), OffsetSpec.maxTimestamp()))
          .all().get().get(new TopicPartition(topic, 0));
      var byTime = admin.listOffsets(Map.of(new TopicPartition(topic, 0),
          OffsetSpec.forTimestamp(1_000_005L))).all().get().get(new TopicPartition(topic, 0));
      result("{\"step\":\"listOffsets\",\"earliest\":" + offsetsJson(earliest) + ",\"latest\":"
          + offsetsJson(latest) + ",\"max_timestamp\":" + maxTs.timestamp()
          + ",\"max_timestamp_offset\":" + maxTs.offset() + ",\"for_timestamp\":"
          + byTime.offset() + "}");

      var lw = admin.deleteRecords(Map.of(new TopicPartition(topic, 0), RecordsToDelete.beforeOffset(4)))
          .all().get();
      result("{\"step\":\"deleteRecords\",\"earliest\":"
          + offsetsJson(listOffsets(admin, topic, 1, OffsetSpec.earliest())) + "}");

      var dirs = admin.describeLogDirs(List.of(cluster.controller().get().id())).allDescriptions().get();
      boolean hosted = dirs.values().stream().flatMap(m -> m.values().stream())
          .anyMatch(dd -> dd.replicaInfos().containsKey(new TopicPartition(topic, 0)));
      result("{\"step\":\"describeLogDirs\",\"hosted\":" + hosted + "}");

      var elected = admin.electLeaders(ElectionType.PREFERRED, Set.of(new TopicPartition(topic, 0)))
          .partitions().get().get(new TopicPartition(topic, 0));
      result("{\"step\":\"electLeaders\",\"error\":"
          + quote(elected.map(e -> e.getClass().getSimpleName()).orElse(null)) + "}");

      // A group: a consumer commits, then the Admin reads, moves and deletes.
      String group = topic + "-group";
      Properties cp = new Properties();
      cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      cp.put(ConsumerConfig.GROUP_ID_CONFIG, group);
      cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
      cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
      cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
      TopicPartition p0 = new TopicPartition(topic, 0);
      try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp)) {
        consumer.subscribe(List.of(topic));
        long deadline = System.nanoTime() + CONSUME_DEADLINE.toNanos();
        while (consumer.assignment().isEmpty() && System.nanoTime() < deadline)
          consumer.poll(Duration.ofMillis(100));
        consumer.commitSync(Map.of(p0, new OffsetAndMetadata(8)));
        ConsumerGroupDescription g =
            admin.describeConsumerGroups(List.of(group)).all().get().get(group);
        result("{\"step\":\"describeConsumerGroups\",\"state\":" + quote(g.groupState().toString())
            + ",\"members\":" + g.members().size() + ",\"assigned\":"
            + g.members().stream().mapToInt(m -> m.assignment().topicPartitions().size()).sum()
            + "}");
      }
      boolean listed = admin.listGroups().all().get().stream()
          .map(GroupListing::groupId).anyMatch(group::equals);
      long committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get()
          .get(p0).offset();
      admin.alterConsumerGroupOffsets(group, Map.of(p0, new OffsetAndMetadata(5))).all().get();
      long altered = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get()
          .get(p0).offset();
      admin.deleteConsumerGroupOffsets(group, Set.of(p0)).all().get();
      boolean gone = !admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get()
          .containsKey(p0);
      admin.deleteConsumerGroups(List.of(group)).all().get();
      boolean deleted = admin.listGroups().all().get().stream()
          .map(GroupListing::groupId).noneMatch(group::equals);
      result("{\"step\":\"groupOffsets\",\"listed\":" + listed + ",\"committed\":" + committed
          + ",\"altered\":" + altered + ",\"offset_deleted\":" + gone + ",\"group_deleted\":"
          + deleted + "}");

      admin.deleteTopics(List.of(topic)).all().get();
      result("{\"step\":\"deleteTopics\",\"listed\":"
          + admin.listTopics().names().get().contains(topic) + "}");
    }
  }
}
