#include "coordinator/embedded_store_file.h"

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

Error corrupt(const std::filesystem::path& path, std::string_view why) {
  return Error(Errc::kCorruption,
               fmt::format("metadata file {} is not valid: {}", path.string(), why));
}

}  // namespace

Result<std::optional<StoreFile>> read_store_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::optional<StoreFile>();
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  if (!in && !in.eof()) return Error::io(errno, "read " + path.string());
  StoreFile file;
  try {
    auto doc = nlohmann::json::parse(ss.str());
    int format = doc.value("format", 1);
    if (format != 1 && format != 2) return corrupt(path, fmt::format("unknown format {}", format));
    file.revision = format == 1 ? 0 : doc.at("revision").get<int64_t>();
    for (const auto& e : doc.at("entries")) {
      Entry entry;
      entry.key = e.at("key").get<std::string>();
      entry.value = e.at("value").get<std::string>();
      entry.version = e.at("version").get<int64_t>();
      if (format == 1) {
        entry.create_revision = entry.mod_revision = 1;
        file.revision = 1;
      } else {
        entry.create_revision = e.at("create_revision").get<int64_t>();
        entry.mod_revision = e.at("mod_revision").get<int64_t>();
        entry.lease = e.at("lease").get<int64_t>();
      }
      if (entry.version < 1 || entry.create_revision < 1 ||
          entry.mod_revision < entry.create_revision || entry.mod_revision > file.revision) {
        return corrupt(path, fmt::format("entry {} has version {}, revisions {}..{} (store at {})",
                                         entry.key, entry.version, entry.create_revision,
                                         entry.mod_revision, file.revision));
      }
      std::string key = entry.key;
      if (!file.entries.emplace(key, std::move(entry)).second) {
        return corrupt(path, "key " + key + " appears twice");
      }
    }
  } catch (const nlohmann::json::exception& e) {
    return corrupt(path, e.what());
  }
  return std::optional<StoreFile>(std::move(file));
}

Status write_store_file(const std::filesystem::path& path, int64_t revision,
                        const std::map<std::string, Entry>& entries) {
  nlohmann::json array = nlohmann::json::array();
  for (const auto& [key, e] : entries) {
    array.push_back({{"key", e.key},
                     {"value", e.value},
                     {"version", e.version},
                     {"create_revision", e.create_revision},
                     {"mod_revision", e.mod_revision},
                     {"lease", e.lease}});
  }
  nlohmann::json doc = {{"format", 2}, {"revision", revision}, {"entries", array}};
  return write_file_durably(path, doc.dump(1));
}

}  // namespace strata::coordinator
