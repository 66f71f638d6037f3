#include "baton/shm/segment.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "baton/shm/naming.hpp"
#include "test_util.hpp"

namespace baton::shm {
namespace {

std::string fresh_name() { return segment_name("test", testing::unique_name("seg")); }

TEST(SegmentTest, create_with_empty_name_returns_invalid_name) {
  auto sut = Segment::create("", 4096, SegmentKind::Test);
  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error().code, SegmentCreateError::InvalidName);
}

TEST(SegmentTest, layout_version_is_pinned) {
  // Bumping the layout version must be a deliberate, reviewed change.
  EXPECT_EQ(SEGMENT_LAYOUT_VERSION, 11);
  EXPECT_EQ(SEGMENT_MAGIC, 0x314d48534e544142ull);
}

TEST(SegmentTest, create_then_open_sees_header_and_body) {
  const auto name = fresh_name();
  auto created = Segment::create(name, 8192, SegmentKind::Test);
  ASSERT_TRUE(created) << created.error().detail;
  std::memcpy(created->base() + 100, "hello", 5);
  created->mark_ready();
  auto sut = Segment::open(name, SegmentKind::Test);
  ASSERT_TRUE(sut) << sut.error().detail;
  EXPECT_EQ(sut->size(), 8192u);
  EXPECT_EQ(std::memcmp(sut->base() + 100, "hello", 5), 0);
  created->unlink();
}

TEST(SegmentTest, create_twice_returns_already_exists) {
  const auto name = fresh_name();
  auto first = Segment::create(name, 4096, SegmentKind::Test);
  ASSERT_TRUE(first);
  auto sut = Segment::create(name, 4096, SegmentKind::Test);
  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error().code, SegmentCreateError::AlreadyExists);
  first->unlink();
}

TEST(SegmentTest, segments_are_private_to_the_user) {
  const auto name = fresh_name();
  auto created = Segment::create(name, 4096, SegmentKind::Test);
  ASSERT_TRUE(created);
  struct stat st {};
  int fd = shm_open(name.c_str(), O_RDONLY, 0);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(fstat(fd, &st), 0);
  close(fd);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  created->unlink();
}

TEST(SegmentTest, open_missing_returns_does_not_exist) {
  auto sut = Segment::open(fresh_name(), SegmentKind::Test, 0);
  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error().code, SegmentOpenError::DoesNotExist);
}

TEST(SegmentTest, open_wrong_kind_returns_incompatible) {
  const auto name = fresh_name();
  auto created = Segment::create(name, 4096, SegmentKind::Test);
  created->mark_ready();
  auto sut = Segment::open(name, SegmentKind::Topic, 0);
  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error().code, SegmentOpenError::Incompatible);
  created->unlink();
}

TEST(SegmentTest, open_foreign_file_returns_incompatible_with_detail) {
  const auto name = fresh_name();
  int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, 4096), 0);
  char junk[64];
  std::memset(junk, 0x5A, sizeof(junk));
  ASSERT_EQ(write(fd, junk, sizeof(junk)), 64);
  close(fd);
  auto sut = Segment::open(name, SegmentKind::Test, 10);
  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error().code, SegmentOpenError::Incompatible);
  EXPECT_NE(sut.error().detail.find("magic"), std::string::npos) << sut.error().detail;
  Segment::unlink(name);
}

TEST(SegmentTest, open_truncated_segment_returns_corrupt) {
  const auto name = fresh_name();
  auto created = Segment::create(name, 8192, SegmentKind::Test);
  created->mark_ready();
  int fd = shm_open(name.c_str(), O_RDWR, 0);
  ASSERT_EQ(ftruncate(fd, 4096), 0);
  close(fd);
  auto sut = Segment::open(name, SegmentKind::Test, 0);
  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error().code, SegmentOpenError::Corrupt);
  created->unlink();
}

TEST(SegmentTest, open_wrong_version_returns_incompatible) {
  const auto name = fresh_name();
  auto created = Segment::create(name, 4096, SegmentKind::Test);
  created->header()->layout_version = 77;
  created->mark_ready();
  auto sut = Segment::open(name, SegmentKind::Test, 0);
  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error().code, SegmentOpenError::Incompatible);
  EXPECT_NE(sut.error().detail.find("77"), std::string::npos);
  created->unlink();
}

TEST(SegmentTest, open_never_readied_by_dead_creator_returns_stale) {
  const auto name = fresh_name();
  pid_t child = fork();
  if (child == 0) {
    auto c = Segment::create(name, 4096, SegmentKind::Test);
    _exit(c ? 0 : 1);  // dies without mark_ready()
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_EQ(WEXITSTATUS(status), 0);
  auto sut = Segment::open(name, SegmentKind::Test, 20);
  ASSERT_FALSE(sut);
  EXPECT_EQ(sut.error().code, SegmentOpenError::Stale);
  Segment::unlink(name);
}

TEST(NamingTest, escapes_slashes_and_keeps_names_short) {
  EXPECT_EQ(escape_name("/a/b c"), "%2Fa%2Fb%20c");
  std::string longname(600, 'x');
  EXPECT_LE(segment_name("t", longname).size(), 250u);
  EXPECT_NE(segment_name("t", longname + "1"), segment_name("t", longname + "2"));
}

TEST(NamingTest, process_namespace_replaces_baton_namespace_until_cleared) {
  const std::string env_ns = environment_namespace();
  ASSERT_EQ(current_namespace(), env_ns);
  set_process_namespace("robot a-d5");
  EXPECT_EQ(current_namespace(), "robot%20a-d5");  // escaped like BATON_NAMESPACE
  EXPECT_EQ(environment_namespace(), env_ns);
  EXPECT_EQ(segment_name("t", "x").rfind(segment_prefix(), 0), 0u);
  EXPECT_NE(segment_prefix().find(".robot%20a-d5."), std::string::npos) << segment_prefix();
  set_process_namespace("");
  EXPECT_EQ(current_namespace(), env_ns);
}

}  // namespace
}  // namespace baton::shm
