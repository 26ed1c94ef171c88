// Filler: sets every field of a message that exists at a version to a
// distinct, non-default value. For codec tests and fuzzer seeds.
#pragma once

#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "server/kafka/types.h"

namespace strata::kafka::testing {

// Sets every field that exists at a version to a distinct, non-default value.
class Filler {
 public:
  explicit Filler(int16_t version) : version_(version) {}

  template <typename T>
  void field(T& value, VersionRange versions, VersionRange = kNoVersions) {
    if (versions.contains(version_)) fill(value);
  }
  template <typename T>
  void tagged(T& value, uint32_t, VersionRange versions, const T& = T{}) {
    if (versions.contains(version_)) fill(value);
  }

 private:
  void fill(bool& v) {
    ++n_;
    v = true;
  }
  template <typename T>
  requires std::is_integral_v<T>
  void fill(T& v) { v = static_cast<T>(++n_); }
  void fill(double& v) { v = 0.5 + static_cast<double>(++n_); }
  void fill(Uuid& v) {
    for (auto& b : v)
      b = static_cast<uint8_t>(++n_);
  }
  void fill(std::string& v) { v = "s" + std::to_string(++n_); }
  void fill(Bytes& v) { v = {std::byte{1}, static_cast<std::byte>(++n_)}; }
  void fill(Records& v) {
    std::string data = "records-" + std::to_string(++n_);
    v.slices = {SharedBytes::copy_of(data), SharedBytes::copy_of(std::string("+tail"))};
    v.null = false;
  }
  template <typename T>
  void fill(std::optional<T>& v) {
    v.emplace();
    fill(*v);
  }
  template <typename T>
  void fill(std::vector<T>& v) {
    v.resize(2);
    for (auto& e : v)
      fill(e);
  }
  template <typename T>
  requires std::is_class_v<T>
  void fill(T& s) { s.visit(*this); }

  int16_t version_;
  int n_ = 0;
};

}  // namespace strata::kafka::testing
