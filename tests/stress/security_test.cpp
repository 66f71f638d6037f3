// Segments are private to their user: mode 0600, owner checked on open. As root, a forked child
// that drops to the system user `baton-test-other` must not be able to open the topic, publisher
// or data segments of another user, nor plant a topic under that user's name that the owner
// would then accept. Skipped (with a message) when not run as root.
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "baton/memory/pool_view.hpp"
#include "baton/shm/naming.hpp"
#include "baton/topic/publisher_port.hpp"
#include "stress/stress_util.hpp"

namespace baton::stress {
namespace {

constexpr const char* OTHER_USER = "baton-test-other";

// Creates the system user if missing; returns its passwd entry or nullptr.
const passwd* other_user() {
  if (const passwd* pw = ::getpwnam(OTHER_USER)) return pw;
  const std::string cmd =
      std::string("useradd -r -M -s /usr/sbin/nologin ") + OTHER_USER + " >/dev/null 2>&1";
  if (std::system(cmd.c_str()) != 0) return nullptr;
  return ::getpwnam(OTHER_USER);
}

TEST(SecurityTest, other_user_cannot_open_segments_or_plant_an_accepted_topic) {
  if (::geteuid() != 0) {
    GTEST_SKIP() << "needs root: creates user " << OTHER_USER
                 << " and setuid()s a child to it; run the stress tests as root to cover this";
  }
  const passwd* pw = other_user();
  ASSERT_NE(pw, nullptr) << "could not create user " << OTHER_USER << " (useradd failed)";
  const uid_t other_uid = pw->pw_uid;
  const gid_t other_gid = pw->pw_gid;

  ScopedNamespace ns("security");
  const auto type = topic::TypeInfo::from_name("secure/msg/Bytes");
  auto t = topic::Topic::open_or_create("/secure/chatter", type);
  ASSERT_TRUE(t);
  auto pub = topic::PublisherPort::create(*t, {});
  ASSERT_TRUE(pub);
  auto loan = (*pub)->loan(64);
  ASSERT_TRUE(loan);
  ASSERT_TRUE((*pub)->publish(*loan, 64));
  const std::uint32_t gen = (*t)->publisher_slot((*pub)->slot())->generation.load();
  struct Target {
    std::string name;
    shm::SegmentKind kind;
  };
  const Target targets[] = {
      {shm::segment_name("t", "/secure/chatter"), shm::SegmentKind::Topic},
      {(*t)->publisher_segment_name((*pub)->slot(), gen), shm::SegmentKind::Publisher},
      {memory::data_segment_name((*t)->pool_name((*pub)->slot(), gen), 0), shm::SegmentKind::Data}};
  for (const auto& target : targets) {
    struct stat st {};
    ASSERT_EQ(::stat(("/dev/shm" + target.name).c_str(), &st), 0) << target.name;
    EXPECT_EQ(st.st_mode & 0777, 0600u) << target.name;
    EXPECT_EQ(st.st_uid, ::geteuid()) << target.name;
  }
  const std::string squat_name = shm::segment_name("t", "/secure/squatted");

  int report[2];
  ASSERT_EQ(::pipe(report), 0);
  pid_t child = ::fork();
  if (child == 0) {
    ::close(report[0]);
    std::string out;
    int failures = 0;
    auto check = [&](bool ok, const std::string& what) {
      out += (ok ? "  ok   " : "  FAIL ") + what + "\n";
      failures += !ok;
    };
    if (::setgroups(0, nullptr) != 0 || ::setgid(other_gid) != 0 || ::setuid(other_uid) != 0) {
      out = "setuid failed\n";
      failures = 100;
    } else {
      for (const auto& target : targets) {
        errno = 0;
        const int fd = ::shm_open(target.name.c_str(), O_RDWR, 0);
        const int err = errno;
        check(fd < 0 && err == EACCES, "shm_open(O_RDWR) " + target.name + " -> " +
                                           (fd < 0 ? std::strerror(err) : "opened"));
        const int ro = ::shm_open(target.name.c_str(), O_RDONLY, 0);
        check(ro < 0, "shm_open(O_RDONLY) " + target.name + (ro < 0 ? " refused" : " opened"));
        auto opened = shm::Segment::open(target.name, target.kind, 0);
        check(!opened && opened.error().code == shm::SegmentOpenError::PermissionDenied,
              "Segment::open " + target.name + " -> " +
                  (opened ? std::string("opened") : opened.error().detail));
        check(::shm_unlink(target.name.c_str()) != 0,
              "shm_unlink " + target.name + " refused (sticky /dev/shm)");
      }
      // Plant a well-formed topic directory under the owner's name, as permissive as baton
      // allows (0660), hoping the owner adopts it.
      auto planted = shm::Segment::create(squat_name, topic::TopicSegmentLayout::total_size,
                                          shm::SegmentKind::Topic, {0660, false});
      if (planted) {
        auto* h = planted->at<topic::TopicHeader>(topic::TopicSegmentLayout::header_offset);
        std::memcpy(h->type_name, type.name.data(), type.name.size());
        std::memcpy(h->type_hash, type.hash.data(), 32);
        h->max_publishers = topic::MAX_PUBLISHERS;
        h->max_subscribers = topic::MAX_SUBSCRIBERS;
        planted->mark_ready();
      }
      check(static_cast<bool>(planted), "planted " + squat_name + " (for the owner to refuse)");
    }
    (void)!::write(report[1], out.data(), out.size());
    std::_Exit(failures > 0 ? 1 : 0);
  }
  ::close(report[1]);
  std::string out;
  char buf[512];
  ssize_t n;
  while ((n = ::read(report[0], buf, sizeof(buf))) > 0)
    out.append(buf, static_cast<std::size_t>(n));
  ::close(report[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  std::printf("[security] as uid %u (%s):\n%s", other_uid, OTHER_USER, out.c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;

  // The owner refuses the planted directory instead of adopting it.
  auto squatted = topic::Topic::open_or_create("/secure/squatted", type);
  ASSERT_FALSE(squatted) << "owner accepted a topic planted by another user";
  EXPECT_EQ(squatted.error().code, topic::TopicError::PermissionDenied);
  EXPECT_NE(squatted.error().detail.find("owned by uid " + std::to_string(other_uid)),
            std::string::npos)
      << squatted.error().detail;
  std::printf("[security] owner's open_or_create of the planted topic: %s (%s)\n",
              std::string(topic::to_string(squatted.error().code)).c_str(),
              squatted.error().detail.c_str());
  shm::Segment::unlink(squat_name);
}

}  // namespace
}  // namespace baton::stress
