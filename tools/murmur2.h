// The Java client's default partitioner: murmur2 of the key bytes (seed
// 0x9747b28c, Kafka's variant), made positive, modulo the partition count.
// Keys produced with `strata produce` land where a Java producer puts them.
#pragma once

#include <cstdint>
#include <span>

namespace strata::tools {

int32_t murmur2(std::span<const std::byte> data);
// Utils.toPositive(murmur2(key)) % partitions
int32_t java_partition(std::span<const std::byte> key, int32_t partitions);

}  // namespace strata::tools
