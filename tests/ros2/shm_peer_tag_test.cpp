// The USER_DATA tag that tells baton endpoints sharing memory apart from the rest of the wire.
#include "../../src/ros2/shm_peer_tag.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "baton/shm/domain_tag.hpp"

namespace baton::ros2 {
namespace {

std::span<const uint8_t> bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

TEST(ShmPeerTag, parse_user_data_of_garbage_never_fails) {
  EXPECT_TRUE(parse_user_data({}).empty());
  EXPECT_TRUE(parse_user_data(bytes(";;;=x;novalue")).empty());
  const auto kv = parse_user_data(bytes("a=b=c;typehash=RIHS01_00;a=2"));
  EXPECT_EQ(kv.at("a"), "2");  // later keys win, as rmw::impl::cpp::parse_key_value
  EXPECT_EQ(kv.at("typehash"), "RIHS01_00");
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    std::string junk(rng() % 64, '\0');
    for (char& c : junk) c = static_cast<char>(rng());
    (void)parse_user_data(bytes(junk));
    EXPECT_FALSE(has_shm_tag(bytes(junk), shm::domain_tag()));
  }
}

TEST(ShmPeerTag, endpoint_user_data_holds_tag_and_type_hash_as_key_values) {
  EXPECT_EQ(endpoint_user_data("RIHS01_ab", "t1"), "baton=t1;typehash=RIHS01_ab;");
  EXPECT_EQ(endpoint_user_data("RIHS01_ab", ""), "typehash=RIHS01_ab;");
  EXPECT_EQ(endpoint_user_data("", "t1"), "baton=t1;");
  const auto kv = parse_user_data(bytes(endpoint_user_data("RIHS01_ab", shm::domain_tag())));
  EXPECT_EQ(kv.at("typehash"), "RIHS01_ab");
  EXPECT_EQ(kv.at("baton"), shm::domain_tag());
}

TEST(ShmPeerTag, has_shm_tag_matches_exactly_the_same_tag) {
  const std::string mine = shm::domain_tag();
  EXPECT_TRUE(has_shm_tag(bytes(endpoint_user_data("RIHS01_ab", mine)), mine));
  EXPECT_FALSE(has_shm_tag(bytes(endpoint_user_data("RIHS01_ab", mine + "x")), mine));
  EXPECT_FALSE(has_shm_tag(bytes(endpoint_user_data("RIHS01_ab", "")), mine));
  EXPECT_FALSE(has_shm_tag(bytes("baton=;"), ""));  // an empty tag never matches
}

}  // namespace
}  // namespace baton::ros2
