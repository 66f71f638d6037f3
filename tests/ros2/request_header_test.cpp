// The request header of services on the DDS wire (baton/ros2/request_header.hpp): the exact bytes
// of rmw_cyclonedds_cpp's convention, the round trip, and hostile samples.
#include "baton/ros2/request_header.hpp"

#include <gtest/gtest.h>

#include <random>

namespace baton::ros2 {
namespace {

// rcl_interfaces/srv/GetParameters_Request {names: ["ab"]} as plain CDR.
const std::vector<uint8_t> PLAIN = {0x00, 0x01, 0x00, 0x00,  // CDR little-endian
                                    0x01, 0x00, 0x00, 0x00,  // 1 name
                                    0x03, 0x00, 0x00, 0x00, 'a', 'b', 0x00};

// What rmw_cyclonedds_cpp puts on rq/…Request for it (serdata.cpp: the header is serialised into
// the CDR stream before the message, `ser << guid; ser << seq`): guid and sequence little-endian
// right after the encapsulation, then the body unchanged.
const std::vector<uint8_t> FRAMED = {
    0x00, 0x01, 0x00, 0x00,                          // CDR little-endian
    0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,  // guid 0x1122334455667788
    0x2a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // sequence 42
    0x01, 0x00, 0x00, 0x00,                          // the body as in PLAIN
    0x03, 0x00, 0x00, 0x00, 'a',  'b',  0x00};

const RequestHeader HEADER{0x1122334455667788ull, 42};

TEST(RequestHeader, frame_puts_guid_and_sequence_between_encapsulation_and_body) {
  auto framed = frame_request(HEADER, PLAIN);
  ASSERT_TRUE(framed.has_value()) << framed.error();
  EXPECT_EQ(*framed, FRAMED);
}

TEST(RequestHeader, unframe_gives_the_header_and_the_plain_message) {
  std::vector<uint8_t> sample = FRAMED;
  auto u = unframe_request(sample);
  ASSERT_TRUE(u.has_value()) << u.error();
  EXPECT_EQ(u->header, HEADER);
  EXPECT_EQ(std::vector<uint8_t>(u->cdr.begin(), u->cdr.end()), PLAIN);
}

TEST(RequestHeader, negative_sequence_and_padding_bits_survive_the_round_trip) {
  std::vector<uint8_t> plain = PLAIN;
  plain[3] = 0x01;  // one byte of padding announced in the options (XTypes 7.6.3.1.2)
  plain.push_back(0x00);
  const RequestHeader h{7, -3};
  auto framed = frame_request(h, plain);
  ASSERT_TRUE(framed.has_value()) << framed.error();
  auto u = unframe_request(*framed);
  ASSERT_TRUE(u.has_value()) << u.error();
  EXPECT_EQ(u->header, h);
  EXPECT_EQ(std::vector<uint8_t>(u->cdr.begin(), u->cdr.end()), plain);
}

TEST(RequestHeader, frame_refuses_what_is_not_little_endian_cdr) {
  EXPECT_FALSE(frame_request(HEADER, std::vector<uint8_t>{0x00, 0x01}).has_value());
  EXPECT_FALSE(frame_request(HEADER, std::vector<uint8_t>{0x00, 0x00, 0x00, 0x00}).has_value());
}

TEST(RequestHeader, unframe_names_what_is_wrong_with_a_bad_sample) {
  std::vector<uint8_t> short_sample(FRAMED.begin(), FRAMED.begin() + 19);
  auto a = unframe_request(short_sample);
  ASSERT_FALSE(a.has_value());
  EXPECT_NE(a.error().find("19 bytes"), std::string::npos) << a.error();

  std::vector<uint8_t> big_endian = FRAMED;
  big_endian[1] = 0x00;
  auto b = unframe_request(big_endian);
  ASSERT_FALSE(b.has_value());
  EXPECT_NE(b.error().find("not little-endian CDR"), std::string::npos) << b.error();

  std::vector<uint8_t> xcdr2 = FRAMED;
  xcdr2[1] = 0x07;
  EXPECT_FALSE(unframe_request(xcdr2).has_value());
}

TEST(RequestHeader, unframe_of_random_bytes_never_reads_outside_the_sample) {
  std::mt19937 rng(5);
  for (int i = 0; i < 20000; ++i) {
    std::vector<uint8_t> s(rng() % 48);
    for (auto& b : s) b = static_cast<uint8_t>(rng());
    if (i % 2 == 0 && s.size() >= 2) s[0] = 0x00, s[1] = 0x01;  // half get past the header check
    const size_t size = s.size();
    auto u = unframe_request(s);
    if (!u) continue;
    ASSERT_GE(size, 20u);
    EXPECT_EQ(u->cdr.size(), size - REQUEST_HEADER_BYTES);
    EXPECT_EQ(u->cdr.data(), s.data() + REQUEST_HEADER_BYTES);
  }
}

}  // namespace
}  // namespace baton::ros2
