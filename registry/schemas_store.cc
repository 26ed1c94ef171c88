#include "registry/schemas_store.h"

#include <spdlog/spdlog.h>

#include "base/bytes.h"

namespace strata::registry {

SchemasStore::SchemasStore(replication::Partition& partition, index::IndexStore& index)
    : view_(kSchemasTopic, partition, index, index::IndexStore::View::kRegistry,
            [](std::span<const std::byte> key, std::optional<std::span<const std::byte>> value)
                -> Result<std::optional<coordinator::LogView::KvOp>> {
              using Op = std::optional<coordinator::LogView::KvOp>;
              auto k = decode_key(string_of(key));
              if (!k) {
                // Only the broker writes _schemas; a record it cannot read
                // is skipped, not a reason to stop serving the rest.
                spdlog::warn("{}: skipping a record: {}", kSchemasTopic, k.error().to_string());
                return Op();
              }
              auto vk = view_key(*k);
              if (!vk) return Op();
              return Op(coordinator::LogView::KvOp{
                  std::move(*vk),
                  value ? std::optional<std::string>(string_of(*value)) : std::nullopt});
            }) {}

Status SchemasStore::fill(RegistryState& state) const {
  STRATA_ASSIGN_OR_RETURN(auto entries, view_.scan(""));
  for (const auto& [key, value] : entries) {
    if (!key.empty() && key[0] == '\x01') continue;  // the view's own (held transactions)
    STRATA_ASSIGN_OR_RETURN(auto k, from_view_key(key));
    STRATA_TRY(state.apply(k, value));
  }
  return ok_status();
}

void SchemasStore::write(std::vector<WriteRecord> records, std::function<void(Status)> done) {
  std::vector<coordinator::LogView::Record> out;
  out.reserve(records.size());
  for (auto& r : records)
    out.push_back({encode_key(r.key), std::move(r.value)});
  view_.append(std::move(out), std::move(done));
}

}  // namespace strata::registry
