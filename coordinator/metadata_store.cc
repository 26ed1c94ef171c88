#include "coordinator/metadata_store.h"

#include <fmt/format.h>

namespace strata::coordinator {

Compare Compare::version(std::string key, Op op, int64_t value) {
  return Compare{std::move(key), Target::kVersion, op, value};
}

Compare Compare::create_revision(std::string key, Op op, int64_t value) {
  return Compare{std::move(key), Target::kCreateRevision, op, value};
}

Compare Compare::mod_revision(std::string key, Op op, int64_t value) {
  return Compare{std::move(key), Target::kModRevision, op, value};
}

int64_t Compare::actual(const Entry* e) const {
  if (e == nullptr) return 0;
  switch (target) {
    case Target::kVersion: return e->version;
    case Target::kCreateRevision: return e->create_revision;
    case Target::kModRevision: return e->mod_revision;
  }
  return 0;
}

bool Compare::holds(int64_t actual) const {
  switch (op) {
    case Op::kEqual: return actual == value;
    case Op::kNotEqual: return actual != value;
    case Op::kLess: return actual < value;
    case Op::kGreater: return actual > value;
  }
  return false;
}

TxnOp TxnOp::put(std::string key, std::string value, LeaseId lease) {
  return TxnOp{Kind::kPut, std::move(key), std::move(value), lease};
}

TxnOp TxnOp::erase(std::string key) {
  return TxnOp{Kind::kErase, std::move(key), {}, kNoLease};
}

TxnOp TxnOp::erase_prefix(std::string prefix) {
  return TxnOp{Kind::kErasePrefix, std::move(prefix), {}, kNoLease};
}

TxnOp TxnOp::get(std::string key) {
  return TxnOp{Kind::kGet, std::move(key), {}, kNoLease};
}

Result<std::vector<Entry>> MetadataStore::list(const std::string& prefix) {
  STRATA_ASSIGN_OR_RETURN(Listing listing, range(prefix));
  return std::move(listing.entries);
}

namespace {

// Why put/erase's compare on `key`'s version `expected` failed, from the
// entry the failure branch read.
Error version_mismatch(const std::string& key, int64_t expected, const std::optional<Entry>& e) {
  if (expected == MetadataStore::kAbsent) return Error(Errc::kAlreadyExists, key + " exists");
  if (!e) return Error(Errc::kNotFound, key + " does not exist");
  return Error(Errc::kInvalidArgument,
               fmt::format("{} is at version {}, not {}", key, e->version, expected));
}

}  // namespace

Result<int64_t> MetadataStore::put(const std::string& key, const std::string& value,
                                   int64_t expected, LeaseId lease) {
  Txn t;
  if (expected != kAny) t.compares.push_back(Compare::version(key, Compare::kEqual, expected));
  t.success = {TxnOp::put(key, value, lease), TxnOp::get(key)};
  t.failure = {TxnOp::get(key)};
  STRATA_ASSIGN_OR_RETURN(TxnResult r, txn(t));
  if (!r.succeeded) return version_mismatch(key, expected, r.results.at(0).entry);
  const auto& written = r.results.at(1).entry;
  if (!written) return Error(Errc::kInternal, key + " is missing right after its put");
  return written->version;
}

Error lease_not_found(LeaseId id) {
  return Error(Errc::kNotFound, fmt::format("lease {} not found (expired or revoked)", id));
}

Status check_lease_ttl(int64_t ttl_ms) {
  if (ttl_ms > 0) return ok_status();
  return Error(Errc::kInvalidArgument, fmt::format("lease TTL {} ms is not positive", ttl_ms));
}

Status MetadataStore::erase(const std::string& key, int64_t expected) {
  Txn t;
  if (expected != kAny) t.compares.push_back(Compare::version(key, Compare::kEqual, expected));
  t.success = {TxnOp::erase(key)};
  t.failure = {TxnOp::get(key)};
  STRATA_ASSIGN_OR_RETURN(TxnResult r, txn(t));
  if (!r.succeeded) return version_mismatch(key, expected, r.results.at(0).entry);
  if (r.results.at(0).erased == 0) return Error(Errc::kNotFound, key + " does not exist");
  return ok_status();
}

}  // namespace strata::coordinator
