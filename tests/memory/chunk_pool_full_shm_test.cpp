// A reserve()d pool commits its chunks as loans first need them (issue 20, memory), so a
// /dev/shm that fills up after reserve() must show as a loan error, never as a SIGBUS on the
// first write into a chunk whose pages tmpfs could not provide. Checked on a real full tmpfs: a
// child process in a mount namespace of its own, with a 4 MiB tmpfs on /dev/shm.
#include <cstring>
#include <string>

#include "baton/memory/chunk_pool.hpp"
#include "private_dev_shm.hpp"
#include "test_util.hpp"

namespace baton::memory {
namespace {

constexpr std::uint64_t MiB = 1ull << 20;
// Child exit codes, so the parent can say what went wrong.
enum Outcome : int {
  Passed = 0,
  ReserveFailed = 3,
  WrongError = 4,
  NeverFull = 5,
  WrongCount = 6,
};

int fill_dev_shm_with_loans(const std::string& name) {
  ChunkPool pool(name, {});
  // Room for 8 chunks of 1 MiB on a 4 MiB tmpfs: fine, only the first is committed now.
  if (!pool.reserve(MiB, 8)) return ReserveFailed;
  int granted = 0;
  ChunkRef last = INVALID_CHUNK;
  for (;;) {
    auto a = pool.allocate(MiB);
    if (!a) {
      if (a.error() != AllocError::OutOfMemory) return WrongError;
      break;
    }
    std::memset(a->data, 0x5a, MiB);  // every page of every chunk handed out: no SIGBUS
    last = a->ref;
    if (++granted > 8) return NeverFull;
  }
  // 4 MiB less the segment's header page: three chunks; the fourth could not be committed.
  if (granted != 3) return WrongCount;
  // Still usable: a chunk given back is handed out again, and written, without committing.
  pool.end_loan(last);
  pool.release_publisher_ref(last);
  auto again = pool.allocate(MiB);
  if (!again) return WrongError;
  std::memset(again->data, 0x5b, MiB);
  return Passed;
}

TEST(ChunkPoolFullShmTest, a_loan_on_a_full_dev_shm_returns_out_of_memory_and_nothing_faults) {
  const std::string name = testing::unique_name("pool");
  testing::expect_passes_on_private_dev_shm(
      "4m", [&] { return fill_dev_shm_with_loans(name); },
      "3: reserve failed, 4: not OutOfMemory, 5: never full, 6: wrong number of chunks");
}

}  // namespace
}  // namespace baton::memory
