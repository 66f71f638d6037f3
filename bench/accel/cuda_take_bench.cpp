// What a cuda:0 subscriber's take costs end to end (DomainSubscriber::take: the DomainTable
// claims a device copy slot and copies the publisher's shm chunk into it), with the chunk
// ranges page-locked (the default) and with page-locking off (registration cap 0: the pageable
// copy every take made before), in one process so both rows share the card and the bus.
#include <cstdio>
#include <vector>

#include "baton/topic/domain_subscriber.hpp"
#include "baton/topic/publisher_port.hpp"
#include "bench/accel/cuda_bench.hpp"

namespace baton::bench::accel {

namespace {

// Median take of `size`-byte messages; an empty Summary when a step fails (reported, not faked).
Summary take_run(const std::string& domain, std::uint64_t size, bool registered, const Config& c) {
  using namespace topic;
  auto t = Topic::open_or_create(
      "/bench/accel/take/" + std::to_string(size) + (registered ? "/registered" : "/pageable"),
      TypeInfo::from_name("bench/msg/Blob"));
  if (!t) return {};
  PublisherOptions options;
  options.depth = 1;  // a few chunks in turn, as a publisher's pool reuses them
  auto pub = PublisherPort::create(*t, options);
  auto sub = DomainSubscriber::create(*t, {}, *memory::domain::DomainSpec::parse(domain));
  if (!pub || !sub) return {};
  std::vector<double> us;
  constexpr int WARM_UP = 5;  // every chunk the pool hands out is registered by then
  for (int i = 0; i < c.runs + WARM_UP; ++i) {
    auto loan = (*pub)->loan(size);
    if (!loan) return {};
    loan->data[0] = std::byte{static_cast<unsigned char>(i)};
    if (!(*pub)->publish(*loan, size)) return {};
    const double t0 = now_ms();
    auto s = (*sub)->take();
    const double t1 = now_ms();
    if (!s) return {};
    if (i >= WARM_UP) us.push_back((t1 - t0) * 1000.0);
  }
  return summarize_runs(us);
}

}  // namespace

void report_cuda_take(memory::domain::CudaBackend& b, const std::string& domain, Report& report,
                      const Config& c) {
  std::printf("\n%-8s %18s %10s %18s %10s  take into %s\n", "size", "pageable median us", "GB/s",
              "registered med. us", "GB/s", domain.c_str());
  const auto cap = b.registrations().cap;
  for (std::uint64_t size : {4ull << 20, 24ull << 20}) {
    Summary row[2];
    for (int registered = 0; registered < 2; ++registered) {
      b.set_registration_cap(registered ? cap : 0);
      row[registered] = take_run(domain, size, registered != 0, c);
      if (row[registered].s.median <= 0) {
        std::printf("%-8s take failed\n", human(size).c_str());
        b.set_registration_cap(cap);
        return;
      }
      report.emit(registered ? "take-registered" : "take-pageable", size, row[registered], "us");
    }
    auto gbs = [&](double us) { return static_cast<double>(size) / (us * 1e3); };
    std::printf("%-8s %18.1f %10.2f %18.1f %10.2f\n", human(size).c_str(), row[0].s.median,
                gbs(row[0].s.median), row[1].s.median, gbs(row[1].s.median));
  }
  b.set_registration_cap(cap);
}

}  // namespace baton::bench::accel
