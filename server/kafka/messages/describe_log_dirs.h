// DescribeLogDirs (key 35): the replicas one broker holds on disk — each
// partition's size and how far its log end trails the high watermark — per
// log directory (Strata has one: the data directory).
//
// Strata's extension: in flexible versions (2+) each partition carries the
// state of its compaction as tagged fields numbered from 10000, far above
// any Kafka defines; clients skip tags they do not know (the protocol's
// rule), `strata topic describe` reads them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "server/kafka/types.h"

namespace strata::kafka {

struct DescribeLogDirsRequest {
  static constexpr int16_t kApiKey = 35;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 4, kFlexibleFrom = 2;
  struct Topic {
    std::string topic;
    std::vector<int32_t> partitions;
    template <typename V>
    void visit(V& v) {
      v.field(topic, kAllVersions);
      v.field(partitions, kAllVersions);
    }
    bool operator==(const Topic&) const = default;
  };
  std::optional<std::vector<Topic>> topics;  // null: every partition held here
  template <typename V>
  void visit(V& v) {
    v.field(topics, kAllVersions, kAllVersions);
  }
  bool operator==(const DescribeLogDirsRequest&) const = default;
};

struct DescribeLogDirsResponse {
  static constexpr int16_t kApiKey = 35;
  // Tags of Strata's compaction fields.
  static constexpr uint32_t kTagDirtyBytes = 10000;
  static constexpr uint32_t kTagCleanBytes = 10001;
  static constexpr uint32_t kTagLastCleanedMs = 10002;
  static constexpr uint32_t kTagLastCleaning = 10003;
  static constexpr uint32_t kTagCleaningFailures = 10004;
  struct Partition {
    int32_t partition_index = 0;
    int64_t partition_size = 0;
    int64_t offset_lag = 0;
    bool is_future_key = false;
    // Compacted topics only (-1 elsewhere): the bytes of the closed
    // segments a cleaning could take now that no cleaning has covered yet,
    // and of those it has; the dirty ratio is dirty / (dirty + clean).
    int64_t dirty_bytes = -1;
    int64_t clean_bytes = -1;
    int64_t last_cleaned_ms = 0;    // the last completed cleaning; 0: never
    std::string last_cleaning;      // the last attempt's outcome since start
    int32_t cleaning_failures = 0;  // failed attempts in a row
    template <typename V>
    void visit(V& v) {
      v.field(partition_index, kAllVersions);
      v.field(partition_size, kAllVersions);
      v.field(offset_lag, kAllVersions);
      v.field(is_future_key, kAllVersions);
      v.tagged(dirty_bytes, kTagDirtyBytes, since(2), int64_t{-1});
      v.tagged(clean_bytes, kTagCleanBytes, since(2), int64_t{-1});
      v.tagged(last_cleaned_ms, kTagLastCleanedMs, since(2), int64_t{0});
      v.tagged(last_cleaning, kTagLastCleaning, since(2), std::string{});
      v.tagged(cleaning_failures, kTagCleaningFailures, since(2), int32_t{0});
    }
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
    template <typename V>
    void visit(V& v) {
      v.field(name, kAllVersions);
      v.field(partitions, kAllVersions);
    }
    bool operator==(const Topic&) const = default;
  };
  struct Result {
    int16_t error_code = 0;
    std::string log_dir;
    std::vector<Topic> topics;
    int64_t total_bytes = -1;
    int64_t usable_bytes = -1;
    template <typename V>
    void visit(V& v) {
      v.field(error_code, kAllVersions);
      v.field(log_dir, kAllVersions);
      v.field(topics, kAllVersions);
      v.field(total_bytes, since(4));
      v.field(usable_bytes, since(4));
    }
    bool operator==(const Result&) const = default;
  };
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  std::vector<Result> results;
  template <typename V>
  void visit(V& v) {
    v.field(throttle_time_ms, kAllVersions);
    v.field(error_code, since(3));
    v.field(results, kAllVersions);
  }
  bool operator==(const DescribeLogDirsResponse&) const = default;
};

}  // namespace strata::kafka
