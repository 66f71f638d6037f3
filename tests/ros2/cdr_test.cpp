// CDR codec on hostile input: every malformed sample gives a clear error, never a crash; plus a
// seeded random-corruption fuzz of decode() and decode_view() (runs without the ROS 2 wheels: the
// types are written to a temporary share directory).
#include "baton/ros2/cdr.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <random>

#include "baton/ros2/type_registry.hpp"

namespace baton::ros2 {
namespace {

class Cdr : public ::testing::Test {
 protected:
  void SetUp() override {
    share_ = std::filesystem::temp_directory_path() /
             ("baton-ros2-cdr-types-" + std::to_string(::getpid()));
    write("builtin_interfaces/msg/Time.msg", "int32 sec\nuint32 nanosec\n");
    write("fz/msg/Inner.msg", "builtin_interfaces/Time stamp\nstring name\nfloat64[] values\n");
    write("fz/msg/Outer.msg",
          "uint8 FLAG=1\n"
          "bool ok\n"
          "int8 i8\n"
          "float64 f\n"
          "string<=8 short_name\n"
          "int32[<=3] small\n"
          "uint16[2] pair\n"
          "Inner inner\n"
          "Inner[] inners\n"
          "Inner[2] two\n"
          "string[] names\n"
          "wstring w\n"
          "bool[] flags\n"
          "byte[] blob\n");
    registry_.add_share_root(share_);
    auto o = registry_.message("fz/msg/Outer");
    ASSERT_TRUE(o.has_value()) << o.error().detail;
    outer_ = *o;
    inner_ = outer_->fields[outer_->field_index("inner")].nested;
  }
  void TearDown() override { std::filesystem::remove_all(share_); }

  void write(const std::string& rel, const std::string& text) {
    auto p = share_ / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }

  Value sample() const {
    const auto& d = *outer_;
    Value v = default_value(d);
    v.at(d, "ok") = Value::of<uint8_t>(1);
    v.at(d, "i8") = Value::of<int8_t>(-5);
    v.at(d, "f") = Value::of(2.5);
    v.at(d, "short_name").str = "abc";
    int32_t small[] = {1, 2};
    v.at(d, "small") = Value::of_array(std::span<const int32_t>(small));
    Value in = default_value(*inner_);
    in.at(*inner_, "name").str = "inner";
    double vals[] = {1.0, -1.0, 0.25};
    in.at(*inner_, "values") = Value::of_array(std::span<const double>(vals));
    v.at(d, "inner") = in;
    v.at(d, "inners").items = {in, default_value(*inner_), in};
    v.at(d, "names").items = {Value::of_string("x"), Value::of_string("")};
    v.at(d, "w").wstr = u"w\u00e9";
    v.at(d, "flags").raw = {1, 0, 1};
    v.at(d, "blob").raw = {9, 8, 7, 6, 5};
    return v;
  }

  std::filesystem::path share_;
  TypeRegistry registry_;
  const MessageDescription* outer_ = nullptr;
  const MessageDescription* inner_ = nullptr;
};

TEST_F(Cdr, decode_when_shorter_than_header_returns_bad_encapsulation) {
  const uint8_t two[] = {0, 1};
  auto r = decode(*outer_, two);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, CdrError::BadEncapsulation);
}

TEST_F(Cdr, decode_when_big_endian_or_xcdr2_returns_bad_encapsulation) {
  auto bytes = *encode(*outer_, sample());
  bytes[1] = 0x00;
  auto r = decode(*outer_, bytes);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, CdrError::BadEncapsulation);
  EXPECT_NE(r.error().detail.find("big-endian"), std::string::npos) << r.error().detail;
  bytes[1] = 0x07;  // XCDR2 little-endian (D_CDR2_LE)
  EXPECT_EQ(decode(*outer_, bytes).error().code, CdrError::BadEncapsulation);
}

TEST_F(Cdr, encode_then_decode_round_trips) {
  const Value v = sample();
  auto bytes = encode(*outer_, v);
  ASSERT_TRUE(bytes.has_value()) << bytes.error().detail;
  EXPECT_EQ(0, std::memcmp(bytes->data(), CDR_LE_HEADER, 4));
  EXPECT_EQ(*encoded_size(*outer_, v), bytes->size());
  auto back = decode(*outer_, *bytes);
  ASSERT_TRUE(back.has_value()) << back.error().detail;
  EXPECT_TRUE(*back == v);
}

TEST_F(Cdr, decode_when_cut_anywhere_returns_truncated) {
  const auto bytes = *encode(*outer_, sample());
  for (size_t n = 4; n < bytes.size(); ++n) {
    auto r = decode(*outer_, std::span(bytes.data(), n));
    ASSERT_FALSE(r.has_value()) << "cut at " << n;
    EXPECT_EQ(r.error().code, CdrError::Truncated) << n << ": " << r.error().detail;
  }
}

TEST_F(Cdr, decode_when_string_over_bound_returns_oversize_string) {
  Value v = sample();
  v.at(*outer_, "short_name").str = "12345678";  // at the bound: fine
  auto bytes = *encode(*outer_, v);
  ASSERT_TRUE(decode(*outer_, bytes).has_value());
  // Encoding 9 characters is refused, and a forged length of 10 (9 + NUL) is refused on decode.
  v.at(*outer_, "short_name").str = "123456789";
  EXPECT_EQ(encode(*outer_, v).error().code, CdrError::OversizeString);
  // short_name's length sits after ok(1) i8(1) pad(6) f(8): offset 4 + 16.
  uint32_t forged = 10;
  std::memcpy(bytes.data() + 20, &forged, 4);
  auto r = decode(*outer_, bytes);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, CdrError::OversizeString);
  EXPECT_NE(r.error().detail.find("fz/msg/Outer.short_name"), std::string::npos)
      << r.error().detail;
}

TEST_F(Cdr, decode_when_sequence_over_bound_or_limit_returns_oversize_sequence) {
  Value v = sample();
  int32_t four[] = {1, 2, 3, 4};
  v.at(*outer_, "small") = Value::of_array(std::span<const int32_t>(four));
  EXPECT_EQ(encode(*outer_, v).error().code, CdrError::OversizeSequence);
  auto bytes = *encode(*outer_, sample());
  DecodeLimits limits;
  limits.max_sequence_elements = 2;  // "inners" has 3
  auto r = decode(*outer_, bytes, limits);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, CdrError::OversizeSequence) << r.error().detail;
}

TEST_F(Cdr, decode_when_huge_sequence_length_fails_without_allocating) {
  // A 4 GiB element count in a tiny sample must be refused before any allocation.
  auto bytes = *encode(*outer_, sample());
  const auto& d = *outer_;
  // blob is last: its count is the last 4-aligned uint32 before the 5 data bytes.
  size_t count_at = bytes.size() - 5 - 4;
  uint32_t huge = 0x3FFFFFF0u;  // under max_sequence_elements: only the input size refuses it
  std::memcpy(bytes.data() + count_at, &huge, 4);
  auto r = decode(d, bytes);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, CdrError::Truncated) << r.error().detail;
  EXPECT_NE(r.error().detail.find("blob"), std::string::npos) << r.error().detail;
}

TEST_F(Cdr, decode_when_bool_not_0_or_1_returns_bad_bool) {
  auto bytes = *encode(*outer_, sample());
  bytes[4] = 2;
  EXPECT_EQ(decode(*outer_, bytes).error().code, CdrError::BadBool);
}

TEST_F(Cdr, decode_when_string_lacks_nul_returns_bad_string) {
  auto bytes = *encode(*outer_, sample());
  bytes[24 + 3] = 'x';  // "abc\0" starts at 4 + 20
  EXPECT_EQ(decode(*outer_, bytes).error().code, CdrError::BadString);
}

TEST_F(Cdr, decode_when_message_over_limit_returns_oversize_message) {
  auto bytes = *encode(*outer_, sample());
  DecodeLimits limits;
  limits.max_message_bytes = 16;
  EXPECT_EQ(decode(*outer_, bytes, limits).error().code, CdrError::OversizeMessage);
}

TEST_F(Cdr, encode_when_value_has_wrong_shape_returns_type_mismatch) {
  Value v = sample();
  v.items.pop_back();
  EXPECT_EQ(encode(*outer_, v).error().code, CdrError::TypeMismatch);
  v = sample();
  v.at(*outer_, "f").raw.resize(4);
  auto r = encode(*outer_, v);
  EXPECT_EQ(r.error().code, CdrError::TypeMismatch);
  EXPECT_NE(r.error().detail.find("f"), std::string::npos);
  v = sample();
  v.at(*outer_, "two").items.pop_back();
  EXPECT_EQ(encode(*outer_, v).error().code, CdrError::TypeMismatch);
  // A number where a string belongs is refused, not written as an empty string.
  v = sample();
  v.at(*outer_, "short_name") = Value::of<int32_t>(7);
  r = encode(*outer_, v);
  EXPECT_EQ(r.error().code, CdrError::TypeMismatch);
  EXPECT_NE(r.error().detail.find("short_name"), std::string::npos) << r.error().detail;
  v = sample();
  v.at(*outer_, "w") = sample();
  EXPECT_EQ(encode(*outer_, v).error().code, CdrError::TypeMismatch);
}

// Seeded random corruption: flips, overwritten lengths, cuts, insertions and pure noise. The
// decoder must return (a value or an error) every time; ASan/UBSan builds make this strict.
// True if every Value::view in `v` lies inside `input`.
bool views_inside(const Value& v, const std::vector<uint8_t>& input) {
  if (!v.view.empty() &&
      (v.view.data() < input.data() || v.view.data() + v.view.size() > input.data() + input.size()))
    return false;
  return std::all_of(v.items.begin(), v.items.end(),
                     [&](const Value& item) { return views_inside(item, input); });
}

TEST_F(Cdr, decode_random_corruption_never_crashes) {
  const auto good = *encode(*outer_, sample());
  std::mt19937_64 rng(0xBA70'2025);
  constexpr int CASES = 120'000;
  int errors = 0;
  DecodeLimits limits;
  limits.max_string_bytes = 1 << 20;
  for (int i = 0; i < CASES; ++i) {
    std::vector<uint8_t> b = good;
    switch (rng() % 6) {
      case 0:  // flip 1..8 random bytes
        for (int k = 1 + rng() % 8; k > 0; --k) b[rng() % b.size()] ^= uint8_t(1 + rng() % 255);
        break;
      case 1: {  // plant a large or small uint32 at a 4-aligned offset (lengths live there)
        size_t at = 4 + 4 * (rng() % ((b.size() - 4) / 4));
        uint32_t val = rng() % 2 ? uint32_t(rng()) : uint32_t(rng() % 64);
        if (at + 4 <= b.size()) std::memcpy(b.data() + at, &val, 4);
        break;
      }
      case 2:  // cut
        b.resize(rng() % b.size());
        break;
      case 3:  // insert random bytes
        b.insert(b.begin() + long(4 + rng() % (b.size() - 4)), 1 + rng() % 7, uint8_t(rng()));
        break;
      case 4:  // noise after a valid header
        b.resize(4 + rng() % 200);
        for (size_t k = 4; k < b.size(); ++k) b[k] = uint8_t(rng());
        break;
      default:  // all 0xFF after the header
        std::fill(b.begin() + 4, b.end(), 0xFF);
        break;
    }
    auto r = decode(*outer_, b, limits);
    // decode_view accepts exactly what decode accepts, to the same content, and every array it
    // leaves in place lies inside the input.
    auto view = decode_view(*outer_, b, limits);
    ASSERT_EQ(view.has_value(), r.has_value());
    if (view.has_value()) {
      EXPECT_EQ(*view, *r);
      EXPECT_TRUE(views_inside(*view, b));
    }
    if (!r.has_value()) {
      ++errors;
      EXPECT_FALSE(r.error().detail.empty());
    } else {
      // Whatever decodes must encode again (shape consistent with the type).
      ASSERT_TRUE(encode(*outer_, *r).has_value() ||
                  encode(*outer_, *r).error().code == CdrError::OversizeString ||
                  encode(*outer_, *r).error().code == CdrError::BadString);
    }
  }
  EXPECT_GT(errors, CASES / 2);
}

}  // namespace
}  // namespace baton::ros2

namespace baton::ros2 {
namespace {

// Value::reserved (two-phase publish): the encoder leaves room for the array, reports where it
// lies, element-aligned from the byte after the header, and encode() writes zeros there.
TEST_F(Cdr, reserved_arrays_are_left_unwritten_reported_and_zero_in_encode) {
  const auto& d = *outer_;
  Value v = sample();
  v.at(d, "inner").at(*inner_, "values") = Value::reserved(3);
  v.at(d, "inners").items[2].at(*inner_, "values") = Value::reserved(2);
  v.at(d, "blob") = Value::reserved(5);
  auto size = encoded_size(d, v);
  ASSERT_TRUE(size.has_value()) << size.error().detail;
  std::vector<uint8_t> buf(*size, 0xEE);  // stands for a loan's old bytes
  std::vector<ArraySlot> slots;
  auto used = encode_into(d, v, buf, &slots);
  ASSERT_TRUE(used.has_value()) << used.error().detail;
  ASSERT_EQ(slots.size(), 3u);
  EXPECT_EQ(slots[0].path, "inner.values");
  EXPECT_EQ(slots[1].path, "inners[2].values");
  EXPECT_EQ(slots[2].path, "blob");
  EXPECT_EQ(slots[0].bytes, 24u);
  EXPECT_EQ(slots[1].bytes, 16u);
  EXPECT_EQ(slots[2].bytes, 5u);
  for (const auto& s : slots) {
    EXPECT_EQ((s.offset - 4) % s.element_size, 0u) << s.path;
    // encode_into left the reserved bytes as they were.
    for (uint64_t i = 0; i < s.bytes; ++i) ASSERT_EQ(buf[s.offset + i], 0xEE) << s.path;
  }
  // The same sample, with the arrays filled where the slots say, decodes to what was filled.
  const double vals[] = {4.0, 5.0, 6.0};
  std::memcpy(buf.data() + slots[0].offset, vals, sizeof vals);
  std::memcpy(buf.data() + slots[1].offset, vals, 16);
  std::memset(buf.data() + slots[2].offset, 0x42, 5);
  auto back = decode_view(d, buf);
  ASSERT_TRUE(back.has_value()) << back.error().detail;
  EXPECT_EQ(back->at(d, "inner").at(*inner_, "values").bytes().data(),
            buf.data() + slots[0].offset);
  EXPECT_EQ(back->at(d, "blob").bytes().data(), buf.data() + slots[2].offset);
  EXPECT_EQ(back->at(d, "short_name").str, "abc");
  // encode() writes zeros in reserved room.
  auto zeros = encode(d, v);
  ASSERT_TRUE(zeros.has_value()) << zeros.error().detail;
  auto z = decode(d, *zeros);
  ASSERT_TRUE(z.has_value()) << z.error().detail;
  EXPECT_EQ(z->at(d, "blob").raw, std::vector<uint8_t>(5, 0));
  EXPECT_EQ(z->at(d, "inner").at(*inner_, "values").raw, std::vector<uint8_t>(24, 0));
}

TEST_F(Cdr, reserved_on_a_field_that_is_not_a_primitive_array_is_a_type_mismatch) {
  const auto& d = *outer_;
  Value v = sample();
  v.at(d, "names") = Value::reserved(2);
  auto r = encode(d, v);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, CdrError::TypeMismatch);
  EXPECT_NE(r.error().detail.find("names"), std::string::npos) << r.error().detail;
  Value fixed = sample();
  fixed.at(d, "pair") = Value::reserved(3);  // uint16[2]
  auto f = encode(d, fixed);
  ASSERT_FALSE(f.has_value());
  EXPECT_EQ(f.error().code, CdrError::TypeMismatch);
}

// decode_locate() (a sample whose arrays live in a memory domain): every primitive array becomes
// Value::reserved(count) plus its slot, where decode_view() would view it; array bytes are not
// read, so a bool array holding bytes that are not 0 / 1 (stale host bytes) still decodes.
TEST_F(Cdr, decode_locate_gives_array_slots_without_reading_array_bytes_bools_included) {
  const auto& d = *outer_;
  auto enc = encode(d, sample());
  ASSERT_TRUE(enc.has_value()) << enc.error().detail;
  auto viewed = decode_view(d, *enc);
  ASSERT_TRUE(viewed.has_value()) << viewed.error().detail;
  std::vector<ArraySlot> slots;
  auto located = decode_locate(d, *enc, slots);
  ASSERT_TRUE(located.has_value()) << located.error().detail;
  const ArraySlot* flags = find_slot(slots, "flags");
  ASSERT_NE(flags, nullptr);
  EXPECT_EQ(enc->data() + flags->offset, viewed->at(d, "flags").bytes().data());
  EXPECT_EQ(located->at(d, "flags").reserved_count, 3u);
  EXPECT_TRUE(located->at(d, "flags").bytes().empty());
  const ArraySlot* values = find_slot(slots, "inners[0].values");
  ASSERT_NE(values, nullptr);
  EXPECT_EQ(enc->data() + values->offset,
            viewed->at(d, "inners").items[0].at(*inner_, "values").bytes().data());
  EXPECT_NE(find_slot(slots, "pair"), nullptr);  // fixed arrays too
  EXPECT_EQ(located->at(d, "short_name").str, "abc");
  EXPECT_EQ(located->at(d, "inner").at(*inner_, "name").str, "inner");

  std::vector<uint8_t> stale = *enc;
  std::memset(stale.data() + flags->offset, 7, flags->bytes);
  auto strict = decode(d, stale);
  ASSERT_FALSE(strict.has_value());
  EXPECT_EQ(strict.error().code, CdrError::BadBool);
  EXPECT_TRUE(decode_locate(d, stale, slots).has_value());
}

TEST_F(Cdr, decode_locate_when_a_length_points_past_the_end_returns_truncated) {
  const auto& d = *outer_;
  auto enc = encode(d, sample());
  ASSERT_TRUE(enc.has_value()) << enc.error().detail;
  // blob is last: its count is the uint32 just before its 5 bytes.
  std::vector<uint8_t> bad = *enc;
  const uint32_t huge = 6;
  std::memcpy(bad.data() + bad.size() - 5 - 4, &huge, 4);
  std::vector<ArraySlot> slots;
  auto r = decode_locate(d, bad, slots);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, CdrError::Truncated);
  EXPECT_NE(r.error().detail.find("blob"), std::string::npos) << r.error().detail;
}

}  // namespace
}  // namespace baton::ros2
