// How the broker asks glibc's malloc to keep the memory it frees.
//
// The broker's large buffers (request frames of up to a MiB, read chunks,
// follower fetch responses) come and go thousands of times a second. With
// glibc's defaults each of them is a fresh mapping (mmap above 128 KiB) or
// comes from heap memory trimmed back to the kernel, so every page of every
// buffer is faulted in and zeroed again: about one fault per 4 KiB moved.
// On a paravirtualized guest a fault is costly (BENCHMARKS.md, "Page faults
// on the fetch path"). Keeping buffers of up to 32 MiB on the heap and freed
// memory in the process reuses pages that are already mapped.
#pragma once

#include <string>

namespace strata {

// Sets the thresholds unless the operator tuned malloc through
// GLIBC_TUNABLES (any glibc.malloc.* setting): theirs win. Returns what it
// did, for the log. Call once, before other threads start.
std::string tune_malloc_for_large_buffers();

}  // namespace strata
