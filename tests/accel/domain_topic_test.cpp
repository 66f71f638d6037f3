// Domains in the topic queue: zero copy on host-unified devices (also across processes), one copy
// per message per copying domain however many subscribers it has, device-published messages.
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <thread>
#include <vector>

#include "accel_test_util.hpp"
#include "baton/memory/domain/kernels.hpp"
#include "baton/shm/naming.hpp"
#include "baton/topic/domain_publisher.hpp"
#include "baton/topic/domain_subscriber.hpp"
#include "child_role.hpp"
#include "test_util.hpp"

namespace baton::topic {
namespace {

using memory::domain::DomainSpec;
using namespace std::chrono_literals;

constexpr std::uint64_t MSG = 8192;

std::shared_ptr<Topic> make_topic(const std::string& name) {
  auto t = Topic::open_or_create(name, TypeInfo::from_name("test/msg/Blob"));
  EXPECT_TRUE(t) << (t ? "" : t.error().detail);
  return *t;
}

unsigned char pattern(std::uint64_t seq, std::uint64_t i) {
  return static_cast<unsigned char>((seq * 31 + i * 7) & 0xFF);
}

bool try_publish_pattern(PublisherPort& pub, std::uint64_t seq) {
  auto loan = pub.loan(MSG);
  if (!loan) return false;
  for (std::uint64_t i = 0; i < MSG; ++i) loan->data[i] = std::byte{pattern(seq, i)};
  return static_cast<bool>(pub.publish(*loan, MSG));
}

void publish_pattern(PublisherPort& pub, std::uint64_t seq) {
  ASSERT_TRUE(try_publish_pattern(pub, seq));
}

std::unique_ptr<DomainSubscriber> subscriber(std::shared_ptr<Topic> t, const char* domain) {
  auto s = DomainSubscriber::create(t, {}, *DomainSpec::parse(domain));
  EXPECT_TRUE(s) << domain << ": " << (s ? "" : s.error().detail);
  return s ? std::move(*s) : nullptr;
}

bool wait_for(const std::function<bool()>& cond) {
  for (int i = 0; i < 2000; ++i) {
    if (cond()) return true;
    std::this_thread::sleep_for(5ms);
  }
  return false;
}

// A domain subscriber makes a copy table for each host publisher and removes it only if it
// leaves after that publisher: a publisher that outlives its domain subscribers removes it.
TEST(DomainTopicTest, host_publisher_that_outlives_its_domain_subscriber_removes_the_copy_table) {
  auto topic = make_topic(testing::unique_name("outlive"));
  auto pub = PublisherPort::create(topic, {});
  ASSERT_TRUE(pub);
  const std::uint32_t gen = topic->publisher_slot((*pub)->slot())->generation.load();
  const std::string table = shm::segment_name("x", domain_table_name(*topic, (*pub)->slot(), gen));
  auto sub = subscriber(topic, "staging");
  ASSERT_TRUE(sub);
  publish_pattern(**pub, 1);
  ASSERT_TRUE(sub->take());
  EXPECT_TRUE(shm::Segment::open(table, shm::SegmentKind::DomainTable, 0));
  sub.reset();  // the publisher is still there: the table stays for its other readers
  EXPECT_TRUE(shm::Segment::open(table, shm::SegmentKind::DomainTable, 0));
  pub->reset();
  EXPECT_FALSE(shm::Segment::open(table, shm::SegmentKind::DomainTable, 0));
}

// Child role: a host publisher on BATON_ACCEL_TOPIC. Writes its slot and generation to the pipe
// BATON_READY_FD, publishes one message once a byte arrives on BATON_GO_FD (the parent's
// subscriber is attached by then), says so with a second write and waits to be killed.
BATON_CHILD_ROLE(host_publisher) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive a parent that failed before killing us
  auto topic =
      Topic::open_or_create(std::getenv("BATON_ACCEL_TOPIC"), TypeInfo::from_name("test/msg/Blob"));
  if (!topic) return testing::child_role_failed("open the topic: " + topic.error().detail);
  auto pub = PublisherPort::create(*topic, {});
  if (!pub) return testing::child_role_failed("create the publisher: " + pub.error().detail);
  const std::uint32_t id[2] = {(*pub)->slot(),
                               (*topic)->publisher_slot((*pub)->slot())->generation.load()};
  const int ready = std::atoi(std::getenv("BATON_READY_FD"));
  char go = 0;
  if (::write(ready, id, sizeof(id)) != static_cast<ssize_t>(sizeof(id)) ||
      ::read(std::atoi(std::getenv("BATON_GO_FD")), &go, 1) != 1) {
    return testing::child_role_failed("talk to the parent");
  }
  if (!try_publish_pattern(**pub, 1)) return testing::child_role_failed("publish");
  if (::write(ready, id, sizeof(id)) != static_cast<ssize_t>(sizeof(id))) {
    return testing::child_role_failed("tell the parent it published");
  }
  ::pause();  // a live publisher until the parent SIGKILLs it
  return 0;
}

// A child process that is SIGKILLed when the test ends, however it ends.
struct KilledAtExit {
  pid_t pid;
  ~KilledAtExit() {
    if (pid > 0 && ::kill(pid, SIGKILL) == 0) testing::wait_exit(pid);
  }
};

// A publisher SIGKILLed while a domain subscriber reads through its copy table: whoever reclaims
// its slot removes the table (and its staging pools), as ~PublisherPort does; before, it stayed
// until the last domain subscriber left.
TEST(DomainTopicTest, copy_table_of_a_sigkilled_publisher_goes_with_its_reclaimed_slot) {
  const std::string name = testing::unique_name("killedpub");
  auto topic = make_topic(name);
  int ready[2], go[2];
  ASSERT_EQ(::pipe(ready), 0);  // no O_CLOEXEC: the child's ends survive its exec
  ASSERT_EQ(::pipe(go), 0);
  KilledAtExit child{
      testing::spawn_child_role("host_publisher", {{"BATON_ACCEL_TOPIC", name},
                                                   {"BATON_READY_FD", std::to_string(ready[1])},
                                                   {"BATON_GO_FD", std::to_string(go[0])}})};
  ::close(ready[1]);
  ::close(go[0]);
  std::uint32_t id[2] = {0, 0};
  ASSERT_EQ(::read(ready[0], id, sizeof(id)), static_cast<ssize_t>(sizeof(id)))
      << "the publisher process did not start (its output is above)";
  const std::string table = shm::segment_name("x", domain_table_name(*topic, id[0], id[1]));
  auto sub = subscriber(topic, "staging");  // makes the table for the live publisher
  ASSERT_TRUE(sub);
  ASSERT_EQ(::write(go[1], "g", 1), 1);
  ASSERT_EQ(::read(ready[0], id, sizeof(id)), static_cast<ssize_t>(sizeof(id)))
      << "the publisher process did not publish (its output is above)";
  ::close(ready[0]);
  ::close(go[1]);
  {
    auto taken = sub->take();
    ASSERT_TRUE(taken) << "no message through the table";  // copied into the staging domain
  }
  EXPECT_TRUE(shm::Segment::open(table, shm::SegmentKind::DomainTable, 0));
  ASSERT_EQ(::kill(child.pid, SIGKILL), 0);
  ASSERT_EQ(testing::wait_exit(child.pid), -1);  // killed
  child.pid = -1;
  EXPECT_GE(topic->reclaim_dead(), 1u);
  EXPECT_FALSE(shm::Segment::open(table, shm::SegmentKind::DomainTable, 0))
      << "the dead publisher's copy table outlived its slot";
  sub.reset();  // the subscriber leaves after the table went: nothing to trip over
}

TEST(DomainTopicTest, subscriber_in_unknown_domain_returns_domain_unavailable) {
  auto topic = make_topic(testing::unique_name("dom"));
  auto sut = DomainSubscriber::create(topic, {}, *DomainSpec::parse("opencl:999"));
  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error().code, DomainSubscriberCreateError::DomainUnavailable);
}

#if BATON_HAVE_OPENCL
// Child role: an opencl:0 subscriber and a staging one on BATON_ACCEL_TOPIC, in a process of its
// own. The OpenCL one runs a kernel on each of 3 messages straight from the publisher's chunk
// (mapped here, no copy) and checks every byte of the result; the staging one shares the copies
// the parent's staging subscriber made.
BATON_CHILD_ROLE(opencl_subscriber) {
  auto topic = make_topic(std::getenv("BATON_ACCEL_TOPIC"));
  auto sub = subscriber(topic, "opencl:0");
  auto staging = subscriber(topic, "staging");
  if (!sub || !staging) return testing::child_role_failed("create the subscribers");
  auto* cl = dynamic_cast<memory::domain::OpenClBackend*>(&sub->backend());
  if (cl == nullptr) return testing::child_role_failed("opencl:0 is not an OpenCL backend");
  auto prog = cl->build(memory::domain::kernels::OPENCL_SOURCE);
  if (!prog) return testing::child_role_failed("build the kernel: " + prog.error().detail);
  cl_int st = CL_SUCCESS;
  cl_kernel k = clCreateKernel(*prog, "transform", &st);
  cl_mem out = clCreateBuffer(cl->context(), CL_MEM_READ_WRITE, MSG, nullptr, &st);
  std::vector<unsigned char> result(MSG);
  for (std::uint64_t seq = 0; seq < 3; ++seq) {
    const std::string at = "message " + std::to_string(seq) + ": ";
    if (!sub->wait(5s)) return testing::child_role_failed(at + "none arrived");
    auto m = sub->take();
    if (!m) return testing::child_role_failed(at + "take: " + std::string(to_string(m.error())));
    if (m->path() != DomainPath::ZeroCopy) return testing::child_role_failed(at + "not zero-copy");
    // The device buffer is the publisher's chunk itself, mapped in this process.
    void* host_ptr = nullptr;
    clGetMemObjectInfo(static_cast<cl_mem>(m->view().native), CL_MEM_HOST_PTR, sizeof(host_ptr),
                       &host_ptr, nullptr);
    if (host_ptr != m->host().data()) {
      return testing::child_role_failed(at + "the device buffer is not the publisher's chunk");
    }
    cl_mem in = static_cast<cl_mem>(m->view().native);
    const cl_uint n = MSG;
    clSetKernelArg(k, 0, sizeof(cl_mem), &in);
    clSetKernelArg(k, 1, sizeof(cl_mem), &out);
    clSetKernelArg(k, 2, sizeof(cl_uint), &n);
    const std::size_t global = MSG;
    if (clEnqueueNDRangeKernel(cl->queue(), k, 1, nullptr, &global, nullptr, 0, nullptr, nullptr) !=
        CL_SUCCESS) {
      return testing::child_role_failed(at + "enqueue the kernel");
    }
    clEnqueueReadBuffer(cl->queue(), out, CL_TRUE, 0, MSG, result.data(), 0, nullptr, nullptr);
    for (std::uint64_t i = 0; i < MSG; ++i) {
      const unsigned char want = memory::domain::kernels::transform_byte(pattern(m->sequence(), i));
      if (result[i] != want) {
        return testing::child_role_failed(at + "byte " + std::to_string(i) + " is " +
                                          std::to_string(result[i]) + ", expected " +
                                          std::to_string(want));
      }
    }
    // And one more subscriber, in a copying domain, sharing the parent's copies.
    if (!staging->wait(5s)) return testing::child_role_failed(at + "none reached staging");
    auto c = staging->take();
    if (!c)
      return testing::child_role_failed(at + "staging take: " + std::string(to_string(c.error())));
    if (c->path() != DomainPath::SharedCopy || std::memcmp(c->view().host, m->host().data(), MSG)) {
      return testing::child_role_failed(at + "staging did not get the shared copy's bytes");
    }
  }
  if (sub->domain_copies(0) != 0) return testing::child_role_failed("copied into opencl:0");
  if (cl->stats().copies.load() != 0) return testing::child_role_failed("the backend copied");
  clReleaseMemObject(out);
  clReleaseKernel(k);
  clReleaseProgram(*prog);
  return 0;
}
#endif  // BATON_HAVE_OPENCL

#if BATON_HAVE_OPENCL
TEST(DomainTopicTest, opencl_subscriber_in_other_process_runs_kernel_on_publisher_bytes) {
  BATON_OPENCL_OR_SKIP(cl, "opencl:0");
  if (!cl->info().host_unified) GTEST_SKIP() << cl->info().name << " is not host-unified";
  const std::string name = testing::unique_name("zc");
  auto topic = make_topic(name);
  auto pub = PublisherPort::create(topic, {});
  ASSERT_TRUE(pub);
  auto staging = subscriber(topic, "staging");  // makes the staging copies the child shares
  ASSERT_TRUE(staging);
  const pid_t child = testing::spawn_child_role("opencl_subscriber", {{"BATON_ACCEL_TOPIC", name}});
  ASSERT_TRUE(wait_for([&] { return (*pub)->subscriber_count() == 3; }));
  for (std::uint64_t seq = 0; seq < 3; ++seq) {
    publish_pattern(**pub, seq);
    ASSERT_TRUE(staging->wait(5s));
    auto c = staging->take();
    ASSERT_TRUE(c) << to_string(c.error());
    EXPECT_EQ(c->path(), DomainPath::MadeCopy);
  }
  EXPECT_EQ(testing::wait_exit(child), 0) << "the subscriber process failed (see its output above)";
  EXPECT_EQ(staging->domain_copies(0), 3u);  // one copy per message, for both processes
}
#endif  // BATON_HAVE_OPENCL

TEST(DomainTopicTest, three_domains_copy_once_per_message_per_copying_domain) {
  const std::string name = testing::unique_name("three");
  auto topic = make_topic(name);
  auto pub = PublisherPort::create(topic, {});
  ASSERT_TRUE(pub);
  const bool have_cl = memory::domain::open_domain("opencl:0").has_value();
  std::vector<std::pair<std::string, std::unique_ptr<DomainSubscriber>>> subs;
  for (const char* d : {"host", "host", "staging", "staging", "staging"}) {
    subs.emplace_back(d, subscriber(topic, d));
  }
  if (have_cl) {
    for (const char* d : {"opencl:0", "opencl:0", "opencl:0:sc", "opencl:0:sc"}) {
      subs.emplace_back(d, subscriber(topic, d));
    }
  }
  constexpr std::uint64_t N = 5;
  for (std::uint64_t seq = 0; seq < N; ++seq) publish_pattern(**pub, seq);
  std::map<std::string, int> made;
  std::vector<unsigned char> back(MSG);
  for (auto& [domain, s] : subs) {
    ASSERT_TRUE(s);
    for (std::uint64_t seq = 0; seq < N; ++seq) {
      auto m = s->take();
      ASSERT_TRUE(m) << domain << ": " << to_string(m.error());
      if (m->path() == DomainPath::MadeCopy) ++made[domain];
      // Read the message back from its domain and compare with what was published.
      if (m->view().host != nullptr) {
        std::memcpy(back.data(), m->view().host, MSG);
      } else {
#if BATON_HAVE_OPENCL
        auto* cl = dynamic_cast<memory::domain::OpenClBackend*>(&s->backend());
        ASSERT_NE(cl, nullptr);
        clEnqueueReadBuffer(cl->queue(), static_cast<cl_mem>(m->view().native), CL_TRUE, 0, MSG,
                            back.data(), 0, nullptr, nullptr);
#endif
      }
      for (std::uint64_t i = 0; i < MSG; i += 97) ASSERT_EQ(back[i], pattern(seq, i)) << domain;
    }
  }
  const int staging_index = subs[2].second->domain_index(0);
  EXPECT_EQ(subs[0].second->domain_index(0), 0);  // host is always domain 0
  EXPECT_EQ(subs[2].second->domain_copies(0), N) << "staging: one copy per message";
  EXPECT_EQ(made["staging"], static_cast<int>(N));
  EXPECT_EQ(made["host"], 0);
  EXPECT_GT(staging_index, 0);
  if (!have_cl) GTEST_SKIP() << "no OpenCL platform found: checked host and staging only";
  EXPECT_EQ(subs[5].second->domain_copies(0), 0u) << "opencl:0 on a unified device: zero copies";
  EXPECT_EQ(made["opencl:0"], 0);
  EXPECT_EQ(subs[7].second->domain_copies(0), N) << "opencl:0:sc: one copy per message";
  EXPECT_EQ(made["opencl:0:sc"], static_cast<int>(N));
}

TEST(DomainTopicTest, released_copies_are_reused_for_later_messages) {
  auto topic = make_topic(testing::unique_name("reuse"));
  PublisherOptions po;
  po.depth = 2;
  auto pub = PublisherPort::create(topic, po);
  auto sut = subscriber(topic, "staging");
  ASSERT_TRUE(pub && sut);
  for (std::uint64_t seq = 0; seq < 200; ++seq) {  // far more than the table's copy slots
    publish_pattern(**pub, seq);
    auto m = sut->take();
    ASSERT_TRUE(m) << seq << ": " << to_string(m.error());
    EXPECT_EQ(static_cast<unsigned char>(m->view().host[5]), pattern(seq, 5));
  }
  EXPECT_EQ(sut->domain_copies(0), 200u);
}

TEST(DomainTopicTest, message_published_in_copying_domain_is_shared_and_copied_to_host_lazily) {
  auto topic = make_topic(testing::unique_name("devpub"));
  auto pub = DomainPublisher::create(topic, {}, *DomainSpec::parse("staging"));
  ASSERT_TRUE(pub) << pub.error().detail;
  auto same = subscriber(topic, "staging");
  auto host = subscriber(topic, "host");
  ASSERT_TRUE(same && host);
  auto loan = (*pub)->loan(MSG);
  ASSERT_TRUE(loan);
  ASSERT_NE(loan->view().host, nullptr);  // staging memory, not the host chunk
  for (std::uint64_t i = 0; i < MSG; ++i) loan->view().host[i] = std::byte{pattern(9, i)};
  ASSERT_TRUE((*pub)->publish(std::move(*loan), MSG));
  auto a = same->take();
  ASSERT_TRUE(a) << to_string(a.error());
  EXPECT_EQ(a->path(), DomainPath::SharedCopy);  // the publisher's own device buffer
  EXPECT_EQ(same->domain_copies(0), 0u);
  auto b = host->take();
  ASSERT_TRUE(b) << to_string(b.error());
  for (std::uint64_t i = 0; i < MSG; i += 13) {
    ASSERT_EQ(static_cast<unsigned char>(b->view().host[i]), pattern(9, i));
  }
  EXPECT_EQ((*pub)->table().copies(0), 1u);  // one copy back to host, on the host reader's take
}

// A message placed `payload_offset` bytes into its chunk (a ROS 2 CDR sample at 4, so its arrays
// are element-aligned): the loan covers the chunk from its start with the host chunk's layout in
// the domain, upload() copies CPU-written parts of the host chunk into the domain, every reader
// (port, same domain, host domain) sees the message at that offset, and copies keep the layout.
TEST(DomainTopicTest, payload_offset_keeps_the_chunk_layout_in_the_domain_and_for_every_reader) {
  constexpr std::uint64_t OFFSET = 4;
  auto topic = make_topic(testing::unique_name("offset"));
  auto pub = DomainPublisher::create(topic, {}, *DomainSpec::parse("staging"));
  ASSERT_TRUE(pub) << pub.error().detail;
  auto same = subscriber(topic, "staging");
  auto host = subscriber(topic, "host");
  auto plain = SubscriberPort::create(topic, {});
  ASSERT_TRUE(same && host && plain);
  auto loan = (*pub)->loan(MSG, OFFSET);
  ASSERT_TRUE(loan);
  EXPECT_EQ(loan->payload_offset(), OFFSET);
  EXPECT_EQ(loan->view().size, OFFSET + MSG);
  // The first 16 bytes of the message are written on the CPU into the host chunk and uploaded;
  // the rest straight into the domain.
  for (std::uint64_t i = 0; i < 16; ++i) loan->host_chunk()[OFFSET + i] = std::byte{pattern(3, i)};
  ASSERT_TRUE((*pub)->upload(*loan, OFFSET, 16));
  EXPECT_FALSE((*pub)->upload(*loan, OFFSET, MSG + 1));  // past the loan
  for (std::uint64_t i = 16; i < MSG; ++i) loan->view().host[OFFSET + i] = std::byte{pattern(3, i)};
  ASSERT_TRUE((*pub)->publish(std::move(*loan), MSG));

  auto a = same->take();
  ASSERT_TRUE(a) << to_string(a.error());
  EXPECT_EQ(a->path(), DomainPath::SharedCopy);
  EXPECT_EQ(a->payload_offset(), OFFSET);
  EXPECT_EQ(a->size(), MSG);
  for (std::uint64_t i = 0; i < MSG; ++i)
    ASSERT_EQ(static_cast<unsigned char>(a->view().host[OFFSET + i]), pattern(3, i)) << i;
  auto b = host->take();
  ASSERT_TRUE(b) << to_string(b.error());
  EXPECT_EQ(b->payload_offset(), OFFSET);
  for (std::uint64_t i = 0; i < MSG; ++i)
    ASSERT_EQ(static_cast<unsigned char>(b->view().host[OFFSET + i]), pattern(3, i)) << i;
  auto c = (*plain)->take();  // a subscriber that knows nothing of domains
  ASSERT_TRUE(c);
  EXPECT_EQ(c->payload_offset(), OFFSET);
  ASSERT_EQ(c->size(), MSG);
  for (std::uint64_t i = 0; i < MSG; ++i)
    ASSERT_EQ(static_cast<unsigned char>(c->data()[i]), pattern(3, i)) << i;
}

// write_host() brings the loan's bytes to its host chunk before publishing (e.g. for a network
// send), and publish does not copy them a second time.
TEST(DomainTopicTest, write_host_copies_the_loan_to_its_chunk_once) {
  auto topic = make_topic(testing::unique_name("writehost"));
  auto pub = DomainPublisher::create(topic, {}, *DomainSpec::parse("staging"));
  ASSERT_TRUE(pub) << pub.error().detail;
  auto plain = SubscriberPort::create(topic, {});  // forces host bytes at publish
  ASSERT_TRUE(plain);
  auto loan = (*pub)->loan(MSG, 4);
  ASSERT_TRUE(loan);
  for (std::uint64_t i = 0; i < MSG; ++i) loan->view().host[4 + i] = std::byte{pattern(5, i)};
  EXPECT_FALSE((*pub)->write_host(*loan, MSG + 1));
  ASSERT_TRUE((*pub)->write_host(*loan, MSG));
  EXPECT_EQ(static_cast<unsigned char>(loan->host_chunk()[4 + 100]), pattern(5, 100));
  ASSERT_TRUE((*pub)->publish(std::move(*loan), MSG));
  EXPECT_EQ((*pub)->table().copies(0), 1u);  // write_host's, not a second one at publish
  auto c = (*plain)->take();
  ASSERT_TRUE(c);
  EXPECT_EQ(static_cast<unsigned char>(c->data()[100]), pattern(5, 100));
}

#if BATON_HAVE_OPENCL
TEST(DomainTopicTest, opencl_publisher_on_unified_device_publishes_kernel_output_without_copy) {
  BATON_OPENCL_OR_SKIP(cl, "opencl:0");
  if (!cl->info().host_unified) GTEST_SKIP() << cl->info().name << " is not host-unified";
  auto topic = make_topic(testing::unique_name("clpub"));
  auto pub = DomainPublisher::create(topic, {}, *DomainSpec::parse("opencl:0"));
  ASSERT_TRUE(pub) << pub.error().detail;
  auto host = subscriber(topic, "host");
  auto loan = (*pub)->loan(MSG);
  ASSERT_TRUE(loan);
  // Fill the device buffer with a kernel: transform over a known input.
  std::vector<unsigned char> input(MSG);
  for (std::uint64_t i = 0; i < MSG; ++i) input[i] = pattern(4, i);
  cl_int st = CL_SUCCESS;
  cl_mem in = clCreateBuffer(cl->context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, MSG,
                             input.data(), &st);
  auto prog = cl->build(memory::domain::kernels::OPENCL_SOURCE);
  ASSERT_TRUE(prog);
  cl_kernel k = clCreateKernel(*prog, "transform", &st);
  cl_mem out = static_cast<cl_mem>(loan->view().native);
  const cl_uint n = MSG;
  clSetKernelArg(k, 0, sizeof(cl_mem), &in);
  clSetKernelArg(k, 1, sizeof(cl_mem), &out);
  clSetKernelArg(k, 2, sizeof(cl_uint), &n);
  const std::size_t global = MSG;
  clEnqueueNDRangeKernel(cl->queue(), k, 1, nullptr, &global, nullptr, 0, nullptr, nullptr);
  clFinish(cl->queue());
  const auto copies = cl->stats().copies.load();
  ASSERT_TRUE((*pub)->publish(std::move(*loan), MSG));
  auto m = host->take();
  ASSERT_TRUE(m);
  for (std::uint64_t i = 0; i < MSG; ++i) {
    ASSERT_EQ(static_cast<unsigned char>(m->view().host[i]),
              memory::domain::kernels::transform_byte(pattern(4, i)));
  }
  EXPECT_EQ(cl->stats().copies.load(), copies);
  clReleaseKernel(k);
  clReleaseProgram(*prog);
  clReleaseMemObject(in);
}

#endif  // BATON_HAVE_OPENCL

}  // namespace
}  // namespace baton::topic
