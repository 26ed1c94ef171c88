// FakeStore: an OffsetsStore in memory for the group coordinator's tests.
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "coordinator/group/offsets_store.h"

namespace strata::coordinator::testing {

// An OffsetsStore in memory; appends complete at once.
class FakeStore final : public OffsetsStore {
 public:
  void append(std::vector<GroupRecord> records, std::function<void(Status)> done) override {
    if (fail_next) {
      fail_next = false;
      return done(Error(Errc::kIoError, "injected"));
    }
    for (auto& r : records) {
      log.push_back(r);
      if (r.kind == GroupRecord::Kind::kOffset) {
        auto key = std::make_tuple(r.group, r.topic, r.partition);
        if (r.offset) {
          offsets[key] = *r.offset;
        } else {
          offsets.erase(key);
        }
      } else if (r.metadata) {
        metadata[r.group] = *r.metadata;
      } else {
        metadata.erase(r.group);
      }
    }
    done(ok_status());
  }
  void append_transactional(int64_t producer_id, int16_t, std::vector<GroupRecord> records,
                            std::function<void(Status)> done) override {
    auto& held = transactional[producer_id];
    held.insert(held.end(), records.begin(), records.end());
    done(ok_status());
  }
  bool pending_transactional(const std::string& g, const std::string& t, int32_t p) const override {
    for (const auto& [pid, records] : transactional)
      for (const auto& r : records)
        if (r.group == g && r.topic == t && r.partition == p) return true;
    return false;
  }
  Result<std::optional<CommittedOffset>> committed(const std::string& g, const std::string& t,
                                                   int32_t p) override {
    auto it = offsets.find({g, t, p});
    if (it == offsets.end()) return std::optional<CommittedOffset>();
    return std::optional<CommittedOffset>(it->second);
  }
  Result<std::vector<Committed>> committed_all(const std::string& g) override {
    std::vector<Committed> out;
    for (const auto& [k, v] : offsets) {
      if (std::get<0>(k) == g) out.push_back({std::get<1>(k), std::get<2>(k), v});
    }
    return out;
  }
  Result<std::vector<std::pair<std::string, std::optional<StoredGroup>>>> groups() override {
    std::map<std::string, std::optional<StoredGroup>> out;
    for (const auto& [g, m] : metadata)
      out[g] = m;
    for (const auto& [k, v] : offsets)
      out.try_emplace(std::get<0>(k), std::nullopt);
    return std::vector<std::pair<std::string, std::optional<StoredGroup>>>(out.begin(), out.end());
  }

  std::vector<GroupRecord> log;
  std::map<std::tuple<std::string, std::string, int32_t>, CommittedOffset> offsets;
  std::map<std::string, StoredGroup> metadata;
  std::map<int64_t, std::vector<GroupRecord>> transactional;  // held for their markers
  bool fail_next = false;
};

}  // namespace strata::coordinator::testing
