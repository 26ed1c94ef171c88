#include "coordinator/embedded_store.h"

#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace strata::coordinator {
namespace {

Status write_file_durably(const std::filesystem::path& path, const std::string& data) {
  auto tmp = path;
  tmp += ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Error::io(errno, "open " + tmp.string());
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return Error::io(err, "write " + tmp.string());
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    int err = errno;
    ::close(fd);
    return Error::io(err, "fsync " + tmp.string());
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) return Error::io(errno, "rename " + tmp.string());
  int dfd = ::open(path.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return Error::io(errno, "open " + path.parent_path().string());
  int rc = ::fsync(dfd);
  int err = errno;
  ::close(dfd);
  if (rc != 0) return Error::io(err, "fsync " + path.parent_path().string());
  return ok_status();
}

}  // namespace

Result<std::unique_ptr<EmbeddedStore>> EmbeddedStore::open(const std::filesystem::path& path) {
  std::unique_ptr<EmbeddedStore> store(new EmbeddedStore(path));
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return store;
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  if (!in && !in.eof()) return Error::io(errno, "read " + path.string());
  try {
    auto doc = nlohmann::json::parse(ss.str());
    for (const auto& e : doc.at("entries")) {
      Entry entry{e.at("key").get<std::string>(), e.at("value").get<std::string>(),
                  e.at("version").get<int64_t>()};
      store->entries_[entry.key] = entry;
    }
  } catch (const nlohmann::json::exception& e) {
    return Error(Errc::kCorruption,
                 fmt::format("metadata file {} is not valid: {}", path.string(), e.what()));
  }
  return store;
}

Status EmbeddedStore::persist() const {
  nlohmann::json entries = nlohmann::json::array();
  for (const auto& [key, e] : entries_) {
    entries.push_back({{"key", e.key}, {"value", e.value}, {"version", e.version}});
  }
  nlohmann::json doc = {{"format", 1}, {"entries", entries}};
  return write_file_durably(path_, doc.dump(1));
}

Status EmbeddedStore::check_version(const std::string& key, int64_t expected) const {
  if (expected == kAny) return ok_status();
  auto it = entries_.find(key);
  int64_t actual = it == entries_.end() ? kAbsent : it->second.version;
  if (actual == expected) return ok_status();
  if (expected == kAbsent) return Error(Errc::kAlreadyExists, key + " exists");
  if (actual == kAbsent) return Error(Errc::kNotFound, key + " does not exist");
  return Error(Errc::kInvalidArgument,
               fmt::format("{} is at version {}, not {}", key, actual, expected));
}

Result<std::optional<MetadataStore::Entry>> EmbeddedStore::get(const std::string& key) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::optional<Entry>();
  return std::optional<Entry>(it->second);
}

Result<std::vector<MetadataStore::Entry>> EmbeddedStore::list(const std::string& prefix) {
  std::lock_guard lock(mu_);
  std::vector<Entry> out;
  for (auto it = entries_.lower_bound(prefix); it != entries_.end(); ++it) {
    if (!it->first.starts_with(prefix)) break;
    out.push_back(it->second);
  }
  return out;
}

Result<int64_t> EmbeddedStore::put(const std::string& key, const std::string& value,
                                   int64_t expected) {
  std::optional<Entry> changed;
  {
    std::lock_guard lock(mu_);
    STRATA_TRY(check_version(key, expected));
    auto old = entries_.find(key);
    std::optional<Entry> previous;
    if (old != entries_.end()) previous = old->second;
    Entry& e = entries_[key];
    e.key = key;
    e.value = value;
    e.version = previous ? previous->version + 1 : 1;
    if (auto st = persist(); !st) {
      if (previous) {
        e = *previous;
      } else {
        entries_.erase(key);
      }
      return std::move(st).error();
    }
    changed = e;
  }
  notify(key, changed);
  return changed->version;
}

Status EmbeddedStore::erase(const std::string& key, int64_t expected) {
  {
    std::lock_guard lock(mu_);
    STRATA_TRY(check_version(key, expected));
    auto it = entries_.find(key);
    if (it == entries_.end()) return Error(Errc::kNotFound, key + " does not exist");
    Entry previous = it->second;
    entries_.erase(it);
    if (auto st = persist(); !st) {
      entries_[key] = previous;
      return st;
    }
  }
  notify(key, std::nullopt);
  return ok_status();
}

void EmbeddedStore::watch(const std::string& prefix, WatchCallback cb) {
  std::lock_guard lock(mu_);
  watches_.emplace_back(prefix, std::move(cb));
}

void EmbeddedStore::notify(const std::string& key, const std::optional<Entry>& entry) {
  std::vector<WatchCallback> matching;
  {
    std::lock_guard lock(mu_);
    for (const auto& [prefix, cb] : watches_) {
      if (key.starts_with(prefix)) matching.push_back(cb);
    }
  }
  for (const auto& cb : matching)
    cb(key, entry);
}

}  // namespace strata::coordinator
