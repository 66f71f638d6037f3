// Fuzz-style test of the decoders that read the network: the TCPROS connection header (of topics
// and of service calls, read on into a ServiceCallHeader) and ROS 1 deserialization of every
// std_msgs / geometry_msgs / sensor_msgs type and of the request and response of every std_srvs /
// sensor_msgs service, with random bytes,
// truncations and single-byte mutations of valid input. Every case must end in a value or an
// error: no crash, no sanitizer report, no allocation beyond the input (ASan would see it), no
// hang. BATON_FUZZ_CASES sets the number of cases (default 100 000; scripts/sanitize.sh runs the
// unit tests, this one included, under ASan + UBSan).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <random>

#include "baton/ros1/connection_header.hpp"
#include "baton/ros1/serialization.hpp"
#include "baton/ros1/service_header.hpp"
#include "baton/ros1/type_registry.hpp"

namespace baton::ros1 {
namespace {

uint64_t fuzz_cases() {
  const char* env = std::getenv("BATON_FUZZ_CASES");
  return env != nullptr ? std::strtoull(env, nullptr, 10) : 100000;
}

std::vector<uint8_t> mutate(std::vector<uint8_t> bytes, std::mt19937_64& rng) {
  switch (rng() % 4) {
    case 0:  // truncate
      bytes.resize(bytes.empty() ? 0 : rng() % bytes.size());
      break;
    case 1:  // flip a byte
      if (!bytes.empty()) bytes[rng() % bytes.size()] = static_cast<uint8_t>(rng());
      break;
    case 2:  // a length-sized word of 0xff.. somewhere
      if (bytes.size() >= 4) {
        const size_t at = rng() % (bytes.size() - 3);
        for (int i = 0; i < 4; ++i) bytes[at + i] = static_cast<uint8_t>(0xff >> (rng() % 8));
      }
      break;
    default:  // random bytes of random length
      bytes.resize(rng() % 64);
      for (auto& b : bytes) b = static_cast<uint8_t>(rng());
  }
  return bytes;
}

TEST(Ros1DecoderFuzz, random_and_mutated_input_never_crashes_the_decoders) {
  TypeRegistry types;
  types.add_default_roots();
  std::vector<const MessageType*> all;
  for (const char* pkg : {"std_msgs", "geometry_msgs", "sensor_msgs"}) {
    std::error_code ec;
    for (const auto& e :
         std::filesystem::directory_iterator(std::string("/usr/share/") + pkg + "/msg", ec))
      if (auto t = types.message(std::string(pkg) + "/" + e.path().stem().string()))
        all.push_back(*t);
  }
  if (all.empty()) GTEST_FAIL() << "no ROS 1 .msg files under /usr/share (scripts/install-ros1.sh)";
  size_t service_halves = 0;
  for (const char* pkg : {"std_srvs", "sensor_msgs"}) {
    std::error_code ec;
    for (const auto& e :
         std::filesystem::directory_iterator(std::string("/usr/share/") + pkg + "/srv", ec))
      if (auto s = types.service(std::string(pkg) + "/" + e.path().stem().string())) {
        all.push_back((*s)->request);
        all.push_back((*s)->response);
        service_halves += 2;
      }
  }
  if (service_halves < 8)
    GTEST_FAIL() << "the .srv files of std_srvs and sensor_msgs are not installed "
                    "(scripts/install-ros1.sh)";
  // Seeds: a valid header and each type's default instance serialized.
  const auto header = encode_connection_header({{"callerid", "/fuzz"},
                                                {"md5sum", "992ce8a1687cec8c8bd883ec73ca41d1"},
                                                {"topic", "/chatter"},
                                                {"type", "std_msgs/String"}});
  const auto service_header =
      encode_connection_header({{"callerid", "/fuzz"},
                                {"md5sum", "09fb03525b03e7ea1fd3992bafd87e16"},
                                {"persistent", "1"},
                                {"probe", "0"},
                                {"service", "/set_bool"}});
  std::vector<std::vector<uint8_t>> seeds;
  for (const auto* t : all) {
    auto v = ros2::default_value(*t->description);
    auto bytes = serialize(*t->description, v);
    seeds.push_back(bytes ? *bytes : std::vector<uint8_t>{});
  }
  std::mt19937_64 rng(20240519);
  const uint64_t cases = fuzz_cases();
  uint64_t header_ok = 0, header_err = 0, msg_ok = 0, msg_err = 0, call_ok = 0, call_err = 0;
  for (uint64_t i = 0; i < cases; ++i) {
    if (i % 4 == 0) {
      const auto& seed = i % 8 == 0 ? header : service_header;
      const auto input = mutate(std::vector<uint8_t>(seed.begin() + 4, seed.end()), rng);
      auto h = decode_connection_header(input);
      (h ? header_ok : header_err)++;
      if (h && i % 8 == 4) {
        auto call = parse_service_call_header(*h);
        if (call) {
          ASSERT_EQ(call->service, h->at("service"));
          ASSERT_EQ(call->md5sum, h->at("md5sum"));
          ++call_ok;
        } else {
          ASSERT_EQ(call.error().code, HeaderError::MissingField);
          ASSERT_FALSE(call.error().detail.empty());
          ++call_err;
        }
      }
      continue;
    }
    const size_t k = rng() % all.size();
    const auto input = mutate(seeds[k], rng);
    auto v = deserialize(*all[k]->description, input, i % 2 ? DecodeMode::View : DecodeMode::Copy);
    if (v) {
      // What decodes must serialize back to the same bytes.
      auto again = serialize(*all[k]->description, *v);
      ASSERT_TRUE(again) << all[k]->name;
      ASSERT_EQ(*again, input) << all[k]->name;
      ++msg_ok;
    } else {
      ASSERT_FALSE(v.error().detail.empty());
      ++msg_err;
    }
  }
  std::printf(
      "[fuzz] %llu cases: headers %llu decoded / %llu refused (service calls %llu / %llu), "
      "messages and service halves %llu / %llu\n",
      static_cast<unsigned long long>(cases), static_cast<unsigned long long>(header_ok),
      static_cast<unsigned long long>(header_err), static_cast<unsigned long long>(call_ok),
      static_cast<unsigned long long>(call_err), static_cast<unsigned long long>(msg_ok),
      static_cast<unsigned long long>(msg_err));
  EXPECT_GT(header_err, 0u);
  EXPECT_GT(msg_err, 0u);
  EXPECT_GT(call_ok, 0u);
  EXPECT_GT(call_err, 0u);
}

}  // namespace
}  // namespace baton::ros1
