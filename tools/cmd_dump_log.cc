// strata dump-log: an offline look at segment files through the engine's
// RecordBatch code — every batch's offsets, timestamps, producer fields,
// codec and CRC check, and with --records every record. Corruption is
// reported with its byte position; the dump then looks for the next intact
// batch and carries on. Offsets a segment skips (log compaction's holes)
// are counted, and a cleaning's files not yet swapped in (`.cleaned`,
// `.swap`) are dumped too, named as such. A live broker's directory can be
// dumped: the files are all opened first (see open_segments).
#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "engine/compression.h"
#include "engine/record_batch.h"
#include "engine/segment.h"
#include "io/disk_file_system.h"
#include "tools/commands.h"
#include "tools/output.h"
#include "tools/time_spec.h"

namespace strata::tools {
namespace {

// A window over a file, refilled with blocking reads.
class Window {
 public:
  Window(io::File& f, uint64_t size) : file_(f), size_(size) {}
  uint64_t size() const { return size_; }
  // Bytes [pos, pos + n) or an empty span when the file is shorter.
  Result<std::span<const std::byte>> at(uint64_t pos, size_t n) {
    if (pos + n > size_) return std::span<const std::byte>();
    if (pos < start_ || pos + n > start_ + buf_.size()) {
      size_t want =
          static_cast<size_t>(std::min<uint64_t>(std::max<size_t>(n, 4 << 20), size_ - pos));
      buf_.resize(want);
      STRATA_ASSIGN_OR_RETURN(size_t got, file_.pread(pos, buf_));
      buf_.resize(got);
      start_ = pos;
      if (got < n) return std::span<const std::byte>();
    }
    return std::span<const std::byte>(buf_.data() + (pos - start_), n);
  }

 private:
  io::File& file_;
  uint64_t size_;
  std::vector<std::byte> buf_;
  uint64_t start_ = 0;
};

struct Totals {
  uint64_t batches = 0, records = 0, bytes = 0, defects = 0, missing = 0;
};

std::string show(std::optional<std::span<const std::byte>> b) {
  return b ? printable(b->data(), b->size()) : std::string("<null>");
}

// Whether an intact batch starts at `pos`.
Result<bool> intact_at(Window& w, uint64_t pos) {
  STRATA_ASSIGN_OR_RETURN(auto head, w.at(pos, engine::kBatchHeaderSize));
  if (head.empty()) return false;
  if (be::load<int8_t>(head.data() + engine::batch_field::kMagic) != engine::kMagicV2) return false;
  int64_t size = engine::peek_batch_size(head.data());
  if (size < static_cast<int64_t>(engine::kBatchHeaderSize) ||
      pos + static_cast<uint64_t>(size) > w.size())
    return false;
  STRATA_ASSIGN_OR_RETURN(auto bytes, w.at(pos, static_cast<size_t>(size)));
  return !bytes.empty() && engine::check_batch_integrity(bytes).ok();
}

Status dump_segment(const std::filesystem::path& path, io::File& file, bool records, bool json,
                    Totals& totals) {
  STRATA_ASSIGN_OR_RETURN(uint64_t size, file.size());
  Window w(file, size);
  std::string name = path.filename().string();
  const char* what = name.ends_with(".cleaned") ? "cleaned file (not swapped in)"
                     : name.ends_with(".swap")  ? "cleaned file (swapping in)"
                                                : "segment";
  if (json) {
    print_json({{"type", "segment"}, {"file", path.string()}, {"bytes", size}, {"kind", what}});
  } else {
    std::printf("%s %s (%llu bytes)\n", what, path.string().c_str(),
                static_cast<unsigned long long>(size));
  }
  // The offsets without a record (between batches, or inside one):
  // compaction removed them.
  auto base = engine::parse_segment_file_name(name.substr(0, name.find(".log") + 4));
  int64_t expected = base ? base->value() : -1;
  uint64_t missing = 0;
  uint64_t pos = 0;
  while (pos < size) {
    auto defect = [&](const std::string& why) {
      ++totals.defects;
      if (json) {
        print_json(
            {{"type", "defect"}, {"file", path.string()}, {"position", pos}, {"error", why}});
      } else {
        std::printf("  CORRUPTION at byte %llu: %s\n", static_cast<unsigned long long>(pos),
                    why.c_str());
      }
    };
    STRATA_ASSIGN_OR_RETURN(auto head,
                            w.at(pos, std::min<uint64_t>(engine::kBatchHeaderSize, size - pos)));
    Result<engine::BatchHeader> checked = Error(Errc::kTruncatedBatch, "");
    std::span<const std::byte> batch;
    if (size - pos < engine::kBatchHeaderSize) {
      checked = Error(Errc::kTruncatedBatch, fmt::format("{} stray bytes at the end", size - pos));
    } else {
      int64_t bsize = engine::peek_batch_size(head.data());
      if (bsize >= static_cast<int64_t>(engine::kBatchHeaderSize) &&
          pos + static_cast<uint64_t>(bsize) <= size) {
        STRATA_ASSIGN_OR_RETURN(batch, w.at(pos, static_cast<size_t>(bsize)));
        checked = engine::check_batch_integrity(batch);
      } else if (bsize >= static_cast<int64_t>(engine::kBatchHeaderSize)) {
        checked = Error(Errc::kTruncatedBatch,
                        fmt::format("batch of {} bytes cut off after {}", bsize, size - pos));
      } else {
        checked = Error(Errc::kCorruptMessage, fmt::format("impossible batch size {}", bsize));
      }
    }
    if (!checked) {
      defect(checked.error().message());
      // Look for the next intact batch after the bad bytes.
      uint64_t next = pos + 1;
      bool found = false;
      for (; next + engine::kBatchHeaderSize <= size; ++next) {
        STRATA_ASSIGN_OR_RETURN(bool ok, intact_at(w, next));
        if (ok) {
          found = true;
          break;
        }
      }
      if (!found) {
        if (!json)
          std::printf("  no intact batch after byte %llu\n", static_cast<unsigned long long>(pos));
        break;
      }
      if (!json) {
        std::printf("  resuming at byte %llu (%llu bytes skipped)\n",
                    static_cast<unsigned long long>(next),
                    static_cast<unsigned long long>(next - pos));
      }
      pos = next;
      continue;
    }
    const auto& h = *checked;
    if (expected >= 0 && h.base_offset.value() > expected) {
      missing += static_cast<uint64_t>(h.base_offset.value() - expected);
    }
    // A cleaned batch keeps its offsets but not every record.
    int64_t span = h.last_offset().value() - h.base_offset.value() + 1;
    if (span > h.records_count) missing += static_cast<uint64_t>(span - h.records_count);
    expected = std::max(expected, h.next_offset().value());
    ++totals.batches;
    totals.records += static_cast<uint64_t>(h.records_count);
    totals.bytes += h.total_size();
    std::string codec(engine::compression_name(h.compression()));
    if (json) {
      print_json({{"type", "batch"},
                  {"position", pos},
                  {"base_offset", h.base_offset.value()},
                  {"last_offset", h.last_offset().value()},
                  {"records", h.records_count},
                  {"size", h.total_size()},
                  {"base_timestamp", h.base_timestamp},
                  {"max_timestamp", h.max_timestamp},
                  {"timestamp_type", h.log_append_time() ? "LogAppendTime" : "CreateTime"},
                  {"producer_id", h.producer_id},
                  {"producer_epoch", h.producer_epoch},
                  {"base_sequence", h.base_sequence},
                  {"leader_epoch", h.leader_epoch.value()},
                  {"codec", codec},
                  {"transactional", h.transactional()},
                  {"control", h.control()},
                  {"crc", fmt::format("{:08x}", h.crc)},
                  {"crc_ok", true}});
    } else {
      std::printf(
          "  batch @%llu offsets %lld..%lld (%d records, %zu bytes) ts %s..%s %s codec %s "
          "producer %lld/%d seq %d epoch %d%s%s crc %08x ok\n",
          static_cast<unsigned long long>(pos), static_cast<long long>(h.base_offset.value()),
          static_cast<long long>(h.last_offset().value()), h.records_count, h.total_size(),
          format_time(h.base_timestamp).c_str(), format_time(h.max_timestamp).c_str(),
          h.log_append_time() ? "LogAppendTime" : "CreateTime", codec.c_str(),
          static_cast<long long>(h.producer_id), h.producer_epoch, h.base_sequence,
          h.leader_epoch.value(), h.transactional() ? " transactional" : "",
          h.control() ? " control" : "", h.crc);
    }
    if (records) {
      auto payload = batch.subspan(engine::kBatchHeaderSize);
      auto plain = engine::decompress(h.compression(), payload, 512 << 20);
      Status st =
          plain
              ? engine::for_each_record(
                    *plain, h.records_count,
                    [&](const engine::RecordView& r) {
                      int64_t offset = h.base_offset.value() + r.offset_delta;
                      int64_t ts = h.log_append_time() ? h.max_timestamp
                                                       : h.base_timestamp + r.timestamp_delta;
                      std::vector<std::pair<std::string, std::string>> headers;
                      (void)engine::for_each_header(r, [&](auto k, auto v) {
                        headers.emplace_back(printable(k.data(), k.size()), show(v));
                      });
                      if (json) {
                        nlohmann::json hj = nlohmann::json::array();
                        for (const auto& [k, v] : headers)
                          hj.push_back({k, v});
                        print_json(
                            {{"type", "record"},
                             {"offset", offset},
                             {"timestamp", ts},
                             {"key", r.key ? nlohmann::json(show(r.key)) : nlohmann::json(nullptr)},
                             {"value",
                              r.value ? nlohmann::json(show(r.value)) : nlohmann::json(nullptr)},
                             {"headers", hj}});
                      } else {
                        std::string hs;
                        for (const auto& [k, v] : headers)
                          hs += fmt::format("{}{}={}", hs.empty() ? "" : ",", k, v);
                        std::printf("    %lld\t%s\t%s\t%s\t%s\n", static_cast<long long>(offset),
                                    format_time(ts).c_str(), show(r.key).c_str(), hs.c_str(),
                                    show(r.value).c_str());
                      }
                      return true;
                    })
              : Status(plain.error());
      if (!st) defect("records of the batch: " + st.error().message());
    }
    pos += h.total_size();
  }
  totals.missing += missing;
  if (json) {
    print_json({{"type", "segment_end"}, {"file", path.string()}, {"missing_offsets", missing}});
  } else if (missing > 0) {
    std::printf("  %llu offset(s) missing: removed by compaction\n",
                static_cast<unsigned long long>(missing));
  }
  return ok_status();
}

// The segment files of a partition directory, sorted.
std::vector<std::filesystem::path> list_segments(const std::string& dir) {
  std::error_code ec;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    std::string n = e.path().filename().string();
    for (std::string_view suffix : {"", ".cleaned", ".swap"}) {
      if (n.ends_with(suffix) &&
          engine::parse_segment_file_name(n.substr(0, n.size() - suffix.size()))) {
        files.push_back(e.path());
      }
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

using OpenSegment = std::pair<std::filesystem::path, std::unique_ptr<io::File>>;

// Every file is opened before any is read: a live broker's cleaner or
// retention may remove or replace files meanwhile, and an open file stays
// readable. When a listed file is gone before it could be opened, the
// directory is listed again.
Result<std::vector<OpenSegment>> open_segments(const std::string& target) {
  io::DiskFileSystem fs(nullptr);
  std::error_code ec;
  if (!std::filesystem::is_directory(target, ec)) {
    if (!std::filesystem::is_regular_file(target, ec))
      return Error(Errc::kInvalidArgument, fmt::format("{}: no such file or directory", target));
    STRATA_ASSIGN_OR_RETURN(auto file, fs.open(target, io::OpenMode::kOpenExisting));
    std::vector<OpenSegment> one;
    one.emplace_back(target, std::move(file));
    return one;
  }
  for (int attempt = 0;; ++attempt) {
    std::vector<OpenSegment> open;
    bool vanished = false;
    for (auto& path : list_segments(target)) {
      auto file = fs.open(path, io::OpenMode::kOpenExisting);
      if (!file) {
        if (attempt < 100 && !std::filesystem::exists(path, ec)) {
          vanished = true;
          break;
        }
        return file.error();
      }
      open.emplace_back(std::move(path), std::move(*file));
    }
    if (vanished) continue;
    if (open.empty())
      return Error(Errc::kInvalidArgument, fmt::format("no segment files in {}", target));
    return open;
  }
}

Status dump(const Globals& g, const std::string& target, bool records) {
  STRATA_ASSIGN_OR_RETURN(auto files, open_segments(target));
  Totals totals;
  for (const auto& [path, file] : files)
    STRATA_TRY(dump_segment(path, *file, records, g.json, totals));
  if (g.json) {
    print_json({{"type", "summary"},
                {"segments", files.size()},
                {"batches", totals.batches},
                {"records", totals.records},
                {"bytes", totals.bytes},
                {"missing_offsets", totals.missing},
                {"defects", totals.defects}});
  } else {
    std::printf(
        "%zu segment(s), %llu batch(es), %llu record(s), %llu bytes, %llu offset(s) removed by "
        "compaction, %llu defect(s)\n",
        files.size(), static_cast<unsigned long long>(totals.batches),
        static_cast<unsigned long long>(totals.records),
        static_cast<unsigned long long>(totals.bytes),
        static_cast<unsigned long long>(totals.missing),
        static_cast<unsigned long long>(totals.defects));
  }
  return ok_status();
}

}  // namespace

void add_dump_log_command(CLI::App& app, Globals& g, Action& action) {
  auto target = std::make_shared<std::string>();
  auto records = std::make_shared<bool>(false);
  auto* d = app.add_subcommand(
      "dump-log", "Dump segment files offline (a .log file, or a partition directory)");
  d->add_option("path", *target, "Segment file or partition directory")->required();
  d->add_flag("-r,--records", *records, "Also print every record");
  d->callback([&, target, records] {
    action = [&g, target, records] { return dump(g, *target, *records); };
  });
}

}  // namespace strata::tools
