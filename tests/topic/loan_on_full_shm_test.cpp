// A publisher that reserve()d its ring commits large chunks as its loans first need them (issue
// 20, memory), so /dev/shm can fill up after start-up. Then a loan must fail with OutOfMemory
// and nobody may fault: neither the publisher writing its loans nor a subscriber pre-mapping
// and reading the committed chunks. On a real full tmpfs: a child process in a mount namespace
// of its own with a 6 MiB tmpfs on /dev/shm (tests/private_dev_shm.hpp).
#include <chrono>
#include <cstring>
#include <vector>

#include "baton/topic/publisher_port.hpp"
#include "baton/topic/subscriber_port.hpp"
#include "private_dev_shm.hpp"
#include "test_util.hpp"

namespace baton::topic {
namespace {

using namespace std::chrono_literals;
constexpr std::uint64_t MiB = 1ull << 20;

// Child exit codes, so the parent can say what went wrong.
enum Outcome : int {
  Passed = 0,
  SetupFailed = 3,
  WrongError = 4,
  NeverFull = 5,
  TooFew = 6,
  BadMessage = 7,
};

int fill_dev_shm_with_loans(const std::string& name) {
  auto topic = Topic::open_or_create(name, TypeInfo::from_name("test/msg/Bytes"));
  if (!topic) return SetupFailed;
  PublisherOptions po;
  po.depth = 4;
  auto pub = PublisherPort::create(*topic, po);
  SubscriberOptions so;
  so.depth = 4;
  so.wait_mode = WaitMode::Blocking;
  auto sub = SubscriberPort::create(*topic, so);
  if (!pub || !sub) return SetupFailed;
  // Room for 12 MiB of chunks on a 6 MiB tmpfs: fine, only one is committed now.
  if (!(*pub)->reserve(MiB, 12)) return SetupFailed;
  std::vector<ChunkLoan> loans;
  for (;;) {
    auto loan = (*pub)->loan(MiB);
    if (!loan) {
      if (loan.error() != LoanError::OutOfMemory) return WrongError;
      break;
    }
    std::memset(loan->data, 0x5a, MiB);  // every page of every chunk handed out: no SIGBUS
    loans.push_back(*loan);
    (void)(*sub)->wait(1ms);  // the subscriber pre-maps what is committed (PoolView::map_ahead)
    if (loans.size() > 12) return NeverFull;
  }
  // The topic directory and the publisher's return queues take ~0.4 MiB of the 6: four or five.
  if (loans.size() < 4) return TooFew;
  // What was handed out works: published, taken and read whole by the subscriber.
  const ChunkLoan first = loans.front();
  std::memset(first.data, 0x6b, MiB);
  if (!(*pub)->publish(first, MiB)) return BadMessage;
  auto m = (*sub)->take();
  if (!m || m->size() != MiB) return BadMessage;
  for (std::uint64_t i = 0; i < MiB; i += 4096) {
    if (m->data()[i] != std::byte{0x6b}) return BadMessage;
  }
  for (std::size_t i = 1; i < loans.size(); ++i) (*pub)->discard(loans[i]);
  return Passed;
}

TEST(LoanOnFullShmTest, a_loan_on_a_full_dev_shm_returns_out_of_memory_and_no_endpoint_faults) {
  const std::string name = testing::unique_name("fullshm");
  testing::expect_passes_on_private_dev_shm(
      "6m", [&] { return fill_dev_shm_with_loans(name); },
      "3: setup failed, 4: not OutOfMemory, 5: never full, 6: too few loans, 7: message not read "
      "back whole");
}

}  // namespace
}  // namespace baton::topic
