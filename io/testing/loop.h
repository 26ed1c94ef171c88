// Loop: an io_context and a Ring driven by the test's own thread, so engine
// code can be tested without starting a shard thread.
//
//   Loop loop;
//   bool done = false;
//   file->sync([&](Status) { done = true; });
//   loop.run_until([&] { return done; });
#pragma once

#include <functional>
#include <memory>

#include <boost/asio/io_context.hpp>

#include "io/ring.h"

namespace strata::testing {

class Loop {
 public:
  Loop() : ring_(io::Ring::create(io_).value()) {}

  boost::asio::io_context& io() { return io_; }
  io::Ring& ring() { return *ring_; }

  // Runs handlers until `done` holds. Fails the process if the loop runs out
  // of work first: that is a lost completion, a bug.
  void run_until(const std::function<bool()>& done) {
    while (!done()) {
      if (io_.stopped()) io_.restart();
      if (io_.run_one() == 0) {
        STRATA_CHECK(done(), "test loop ran out of work before its condition held");
      }
    }
  }

  // Runs one handler, waiting for one if none is ready. An io_context that
  // ran out of work stops; this restarts it first.
  size_t run_one() {
    if (io_.stopped()) io_.restart();
    return io_.run_one();
  }

  // Runs every handler that is ready now or becomes ready while running.
  void run_ready() {
    if (io_.stopped()) io_.restart();
    while (io_.poll() > 0) {
    }
  }

 private:
  boost::asio::io_context io_;
  std::unique_ptr<io::Ring> ring_;
};

}  // namespace strata::testing
