// CdrToRos1 (ros1_conversion.hpp): a pairing compiled once from both descriptions, then one walk
// over the CDR bytes per message that writes the ROS 1 bytes as it reads.
#include "baton/bridge/ros1_conversion.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <utility>

#include "../ros2/cdr_stream.hpp"

namespace baton::bridge {

using ros2::ArrayKind;
using ros2::BaseType;
using ros2::CdrError;
using ros2::FieldDescription;
using ros2::MessageDescription;
using ros2::detail::cdr_at_field;
using ros2::detail::cdr_fail;
using ros2::detail::CdrReader;
using ros2::detail::CdrStatus;

namespace {

// The one field renaming between the two generations of the common packages (ros1_bridge's
// sensor_msgs mapping rules): ROS 2 name -> ROS 1 name, per ROS 2 type.
struct Renamed {
  std::string_view ros2_type, ros2_field, ros1_field;
};
constexpr Renamed RENAMED[] = {
    {"sensor_msgs/msg/CameraInfo", "d", "D"},
    {"sensor_msgs/msg/CameraInfo", "k", "K"},
    {"sensor_msgs/msg/CameraInfo", "r", "R"},
    {"sensor_msgs/msg/CameraInfo", "p", "P"},
};

constexpr std::string_view PLACEHOLDER = "structure_needs_at_least_one_member";

bool names_pair(const MessageDescription& ros2_type, const std::string& ros2_field,
                const std::string& ros1_field) {
  if (ros2_field == ros1_field) return true;
  const std::string type = ros2_type.full_name();
  return std::any_of(std::begin(RENAMED), std::end(RENAMED), [&](const Renamed& r) {
    return r.ros2_type == type && r.ros2_field == ros2_field && r.ros1_field == ros1_field;
  });
}

std::string ros1_name_of(const MessageDescription& d) { return d.package + "/" + d.name; }

bool is_ros1_header(const MessageDescription& d) {
  return d.package == "std_msgs" && d.name == "Header";
}

std::string shape(const FieldDescription& f) {
  std::string t = f.type == BaseType::Nested ? f.nested_type_name : std::string(to_string(f.type));
  if (f.string_bound != 0) t += "<=" + std::to_string(f.string_bound);
  switch (f.array) {
    case ArrayKind::None:
      return t;
    case ArrayKind::Fixed:
      return t + "[" + std::to_string(f.array_size) + "]";
    case ArrayKind::Bounded:
      return t + "[<=" + std::to_string(f.array_size) + "]";
    case ArrayKind::Unbounded:
      return t + "[]";
  }
  return t;
}

}  // namespace

// One step of the walk: what to read from CDR and what to write as ROS 1.
struct CdrToRos1::Plan {
  struct Op {
    enum class Kind : uint8_t {
      Primitive,  // `size`-byte elements aligned to `align` in CDR (time / duration: 8 at 4)
      String,
      Nested,  // structs[nested]
      Seq,     // ROS 1 Header.seq: written, nothing read
      Drop,    // the ROS 2 empty-message placeholder: read, nothing written
    };
    Kind kind = Kind::Primitive;
    std::string name;  // the ROS 2 field name, for error paths
    uint32_t size = 0, align = 1;
    bool is_bool = false;
    ArrayKind array = ArrayKind::None;
    uint32_t array_size = 0, string_bound = 0, nested = 0;
  };
  struct Struct {
    std::vector<Op> ops;
    uint64_t min_cdr_bytes = 1;  // a lower bound of one encoded instance (never 0: check_room)
  };
  std::vector<Struct> structs;  // [0] is the message itself
};

namespace {

using Plan = CdrToRos1::Plan;
using Op = Plan::Op;
using CompileResult = Result<uint32_t, Error<ConversionError>>;

Unexpected<Error<ConversionError>> incompatible(std::string detail) {
  return unexpected(Error<ConversionError>{ConversionError::Incompatible, std::move(detail)});
}

class Compiler {
 public:
  explicit Compiler(Plan& plan) : plan_(plan) {}

  CompileResult compile(const MessageDescription& a, const MessageDescription& b,
                        const std::string& path) {
    if (auto it = memo_.find({&a, &b}); it != memo_.end()) return it->second;
    const auto index = static_cast<uint32_t>(plan_.structs.size());
    plan_.structs.emplace_back();
    memo_[{&a, &b}] = index;
    std::vector<Op> ops;
    size_t i = 0;
    for (const auto& f1 : b.fields) {
      const bool seq = is_ros1_header(b) && f1.name == "seq" && f1.type == BaseType::UInt32 &&
                       f1.array == ArrayKind::None &&
                       (i >= a.fields.size() || a.fields[i].name != "seq");
      if (seq) {
        ops.push_back(Op{.kind = Op::Kind::Seq, .name = "seq", .size = 4});
        continue;
      }
      if (i >= a.fields.size())
        return incompatible(path + "." + f1.name + ": the ROS 1 field (" + shape(f1) +
                            ") has no ROS 2 counterpart in " + a.full_name());
      const auto& f2 = a.fields[i++];
      if (!names_pair(a, f2.name, f1.name))
        return incompatible(path + "." + f2.name + ": ROS 2 field '" + f2.name +
                            "' stands where ROS 1 " + ros1_name_of(b) + " has '" + f1.name +
                            "' (fields pair by name, in order)");
      auto op = pair(f2, f1, path + "." + f2.name);
      if (!op) return unexpected(op.error());
      ops.push_back(std::move(*op));
    }
    for (; i < a.fields.size(); ++i) {
      const auto& f2 = a.fields[i];
      if (f2.name == PLACEHOLDER && b.fields.empty()) {
        ops.push_back(Op{.kind = Op::Kind::Drop, .name = f2.name, .size = 1});
        continue;
      }
      return incompatible(path + "." + f2.name + ": the ROS 2 field (" + shape(f2) +
                          ") has no ROS 1 counterpart in " + ros1_name_of(b));
    }
    uint64_t min_bytes = 0;
    for (const auto& op : ops) min_bytes += min_cdr_bytes(op);
    plan_.structs[index].ops = std::move(ops);
    plan_.structs[index].min_cdr_bytes = std::max<uint64_t>(1, min_bytes);
    return index;
  }

 private:
  Result<Op, Error<ConversionError>> pair(const FieldDescription& f2, const FieldDescription& f1,
                                          const std::string& path) {
    const auto mismatch = [&](const std::string& why) {
      return incompatible(path + ": ROS 2 " + shape(f2) + " vs ROS 1 " + shape(f1) + " (" + why +
                          ")");
    };
    Op op{.name = f2.name, .array = f2.array, .array_size = f2.array_size};
    const bool fixed2 = f2.array == ArrayKind::Fixed, fixed1 = f1.array == ArrayKind::Fixed;
    if ((f2.array == ArrayKind::None) != (f1.array == ArrayKind::None) || fixed2 != fixed1 ||
        (fixed2 && f2.array_size != f1.array_size))
      return mismatch("array shapes differ");
    if (f1.array == ArrayKind::Bounded) return mismatch("ROS 1 has no bounded arrays");
    if (f2.type == BaseType::Nested && f1.type == BaseType::Nested) {
      const bool time = f2.nested_type_name == "builtin_interfaces/msg/Time" &&
                        f1.nested_type_name == ros1::TIME_TYPE;
      const bool duration = f2.nested_type_name == "builtin_interfaces/msg/Duration" &&
                            f1.nested_type_name == ros1::DURATION_TYPE;
      if (time || duration) {  // {sec, nanosec} -> {secs, nsecs}: two 4-byte words as they are
        op.size = 8;
        op.align = 4;
        return op;
      }
      if (f2.nested == nullptr || f1.nested == nullptr) return mismatch("unresolved nested type");
      if (ros1_type_name(f2.nested->full_name()) != ros1_name_of(*f1.nested))
        return mismatch("different message types");
      auto nested = compile(*f2.nested, *f1.nested, path);
      if (!nested) return unexpected(nested.error());
      op.kind = Op::Kind::Nested;
      op.nested = *nested;
      return op;
    }
    if (f2.type == BaseType::String && f1.type == BaseType::String) {
      op.kind = Op::Kind::String;
      op.string_bound = f2.string_bound;
      return op;
    }
    if (!ros2::is_primitive(f2.type) || !ros2::is_primitive(f1.type))
      return mismatch("no conversion between these types");
    const uint32_t size = ros2::primitive_size(f2.type);
    const bool bools = f2.type == BaseType::Bool || f1.type == BaseType::Bool;
    const bool same =
        f2.type == f1.type || (!bools && size == 1 && ros2::primitive_size(f1.type) == 1);
    if (!same) return mismatch("different primitive types");
    op.size = op.align = size;
    op.is_bool = f2.type == BaseType::Bool;
    return op;
  }

  uint64_t min_cdr_bytes(const Op& op) const {
    uint64_t one = 0;
    switch (op.kind) {
      case Op::Kind::Seq:
        return 0;
      case Op::Kind::Drop:
        return 1;
      case Op::Kind::Primitive:
        one = op.size;
        break;
      case Op::Kind::String:
        one = 4;
        break;
      case Op::Kind::Nested:
        one = plan_.structs[op.nested].min_cdr_bytes;
        break;
    }
    if (op.array == ArrayKind::None) return one;
    if (op.array == ArrayKind::Fixed) return one * op.array_size;
    return 4;
  }

  Plan& plan_;
  std::map<std::pair<const MessageDescription*, const MessageDescription*>, uint32_t> memo_;
};

// Where the ROS 1 bytes go: with `out` == nullptr it only counts (converted_size).
struct Ros1Out {
  uint8_t* out = nullptr;
  uint64_t room = 0;
  uint64_t pos = 0;

  CdrStatus put(const void* p, uint64_t n) {
    if (out != nullptr) {
      if (n > room - pos)
        return cdr_fail(CdrError::OversizeMessage, ": the ROS 1 bytes outgrow their room of " +
                                                       std::to_string(room) + " bytes");
      if (n > 0) std::memcpy(out + pos, p, n);
    }
    pos += n;
    return Ok{};
  }
  CdrStatus put_u32(uint32_t v) { return put(&v, 4); }
};

class Walker {
 public:
  // `seq`: the seq of the message's own header (a Header field of the top-level message).
  Walker(const Plan& plan, CdrReader& in, Ros1Out& out, uint32_t seq)
      : plan_(plan), in_(in), out_(out), seq_(seq) {}

  // `seq_here`: what a Seq op of this struct writes; `top`: this is the message itself.
  CdrStatus walk_struct(uint32_t index, uint32_t seq_here, bool top) {
    for (const auto& op : plan_.structs[index].ops) {
      if (auto s = walk_op(op, seq_here, top); !s) return cdr_at_field(s.error(), op.name);
    }
    return Ok{};
  }

 private:
  CdrStatus walk_op(const Op& op, uint32_t seq_here, bool top) {
    switch (op.kind) {
      case Op::Kind::Seq:
        return out_.put_u32(seq_here);
      case Op::Kind::Drop: {
        uint8_t ignored = 0;
        return in_.get_primitive(&ignored, 1, false);
      }
      default:
        break;
    }
    if (op.array == ArrayKind::None) return walk_one(op, top);
    uint32_t n = 0;
    if (auto s = in_.get_array_length(op.array, op.array_size, n); !s) return s;
    if (op.array != ArrayKind::Fixed) {
      if (auto s = out_.put_u32(n); !s) return s;
    }
    if (op.kind == Op::Kind::Primitive) return copy_primitives(op, n);
    const uint64_t min_bytes =
        op.kind == Op::Kind::String ? 4 : plan_.structs[op.nested].min_cdr_bytes;
    if (auto s = in_.check_room(n, min_bytes); !s) return s;
    for (uint32_t k = 0; k < n; ++k) {
      if (auto s = walk_one(op, false); !s)
        return cdr_at_field(s.error(), "[" + std::to_string(k) + "]");
    }
    return Ok{};
  }

  // One element (or the scalar) of a Primitive, String or Nested op; `top`: a field of the
  // message itself (a nested Header there is the message's header).
  CdrStatus walk_one(const Op& op, bool top) {
    switch (op.kind) {
      case Op::Kind::Primitive:
        return copy_primitives(op, 1);
      case Op::Kind::String: {
        std::string_view s;
        if (auto st = in_.get_string(op.string_bound, s); !st) return st;
        if (auto st = out_.put_u32(static_cast<uint32_t>(s.size())); !st) return st;
        return out_.put(s.data(), s.size());
      }
      case Op::Kind::Nested:
        return walk_struct(op.nested, top ? seq_ : 0, false);
      default:
        return cdr_fail(CdrError::Internal, ": unexpected step");
    }
  }

  // `n` elements, aligned once (CDR aligns an array only when it has elements), copied in one go.
  CdrStatus copy_primitives(const Op& op, uint32_t n) {
    if (n == 0) return Ok{};
    if (auto s = in_.align(op.align); !s) return s;
    const uint64_t bytes = uint64_t{n} * op.size;
    if (bytes > in_.left()) return in_.truncated(bytes);
    const uint8_t* p = in_.in + in_.pos;
    if (op.is_bool) {
      if (auto s = ros2::detail::check_bools(p, bytes); !s) return s;
    }
    in_.pos += bytes;
    return out_.put(p, bytes);
  }

  const Plan& plan_;
  CdrReader& in_;
  Ros1Out& out_;
  const uint32_t seq_;
};

// The pairing applied to a decoded Value instead of CDR bytes, either way (CdrToRos1::ros1_value,
// ros2_value): the steps are the same but for the two fields only one side has.
class ValueMapper {
 public:
  ValueMapper(const Plan& plan, uint32_t seq, bool to_ros1)
      : plan_(plan), seq_(seq), to_ros1_(to_ros1) {}

  Result<ros2::Value, Error<CdrError>> map_struct(uint32_t index, const ros2::Value& in,
                                                  uint32_t seq_here, bool top) {
    ros2::Value out;
    size_t item = 0;
    for (const auto& op : plan_.structs[index].ops) {
      if (op.kind == Op::Kind::Seq && to_ros1_) {  // ROS 1 Header.seq: written / dropped
        out.items.push_back(ros2::Value::of<uint32_t>(seq_here));
        continue;
      }
      if (op.kind == Op::Kind::Drop && !to_ros1_) {  // the ROS 2 placeholder: made / dropped
        out.items.push_back(ros2::Value::of<uint8_t>(0));
        continue;
      }
      if (item >= in.items.size())
        return cdr_at_field(Error<CdrError>{CdrError::TypeMismatch, ": missing from the value"},
                            op.name);
      const ros2::Value& field = in.items[item++];
      if (op.kind == Op::Kind::Drop || op.kind == Op::Kind::Seq) continue;
      if (op.kind != Op::Kind::Nested) {  // primitives (time: its two words), strings, arrays
        out.items.push_back(field);
        continue;
      }
      if (op.array == ArrayKind::None) {
        auto nested = map_struct(op.nested, field, top ? seq_ : 0, false);
        if (!nested) return cdr_at_field(nested.error(), op.name);
        out.items.push_back(std::move(*nested));
        continue;
      }
      ros2::Value array;
      for (size_t k = 0; k < field.items.size(); ++k) {
        auto element = map_struct(op.nested, field.items[k], 0, false);
        if (!element) return cdr_at_field(element.error(), op.name + "[" + std::to_string(k) + "]");
        array.items.push_back(std::move(*element));
      }
      out.items.push_back(std::move(array));
    }
    if (item != in.items.size())
      return cdr_fail(CdrError::TypeMismatch, ": " + std::to_string(in.items.size()) +
                                                  " fields in the value, the type has " +
                                                  std::to_string(item));
    return out;
  }

 private:
  const Plan& plan_;
  const uint32_t seq_;
  const bool to_ros1_;
};

}  // namespace

std::string ros1_type_name(std::string_view ros2_type) {
  const auto first = ros2_type.find('/');
  const auto last = ros2_type.rfind('/');
  if (first == std::string_view::npos || first == last) return std::string(ros2_type);
  return std::string(ros2_type.substr(0, first)) + std::string(ros2_type.substr(last));
}

Result<CdrToRos1, Error<ConversionError>> CdrToRos1::create(const MessageDescription& ros2_type,
                                                            const ros1::MessageType& ros1_type) {
  if (ros1_type.description == nullptr)
    return unexpected(Error<ConversionError>{ConversionError::NoCounterpart,
                                             ros1_type.name + " has no description"});
  auto plan = std::make_shared<Plan>();
  Compiler compiler(*plan);
  auto root = compiler.compile(ros2_type, *ros1_type.description, ros2_type.full_name());
  if (!root) return unexpected(root.error());
  return CdrToRos1(ros2_type, ros1_type, std::move(plan));
}

Result<uint64_t, Error<CdrError>> CdrToRos1::walk(std::span<const uint8_t> cdr, uint8_t* out,
                                                  uint64_t room, uint32_t seq,
                                                  const ros2::DecodeLimits& limits) const {
  CdrReader in;
  if (auto s = ros2::detail::open_cdr(cdr, limits, ros2_->full_name(), in); !s)
    return unexpected(s.error());
  Ros1Out sink{out, room, 0};
  Walker walker(*plan_, in, sink, seq);
  if (auto s = walker.walk_struct(0, 0, true); !s)
    return cdr_at_field(s.error(), ros2_->full_name());
  return sink.pos;
}

Result<uint64_t, Error<CdrError>> CdrToRos1::converted_size(
    std::span<const uint8_t> cdr, const ros2::DecodeLimits& limits) const {
  return walk(cdr, nullptr, 0, 0, limits);
}

Result<uint64_t, Error<CdrError>> CdrToRos1::convert_into(std::span<const uint8_t> cdr,
                                                          std::span<uint8_t> out, uint32_t seq,
                                                          const ros2::DecodeLimits& limits) const {
  if (out.data() == nullptr) {  // an empty span: only an empty ROS 1 message fits
    static uint8_t none = 0;
    return walk(cdr, &none, 0, seq, limits);
  }
  return walk(cdr, out.data(), out.size(), seq, limits);
}

Result<std::vector<uint8_t>, Error<CdrError>> CdrToRos1::convert(
    std::span<const uint8_t> cdr, uint32_t seq, const ros2::DecodeLimits& limits) const {
  auto size = converted_size(cdr, limits);
  if (!size) return unexpected(size.error());
  std::vector<uint8_t> out(*size);
  auto written = convert_into(cdr, out, seq, limits);
  if (!written) return unexpected(written.error());
  out.resize(*written);
  return out;
}

Result<ros2::Value, Error<CdrError>> CdrToRos1::ros1_value(const ros2::Value& v,
                                                           uint32_t seq) const {
  ValueMapper mapper(*plan_, seq, true);
  auto out = mapper.map_struct(0, v, 0, true);
  if (!out) return cdr_at_field(out.error(), ros2_->full_name());
  return out;
}

Result<ros2::Value, Error<CdrError>> CdrToRos1::ros2_value(const ros2::Value& v) const {
  ValueMapper mapper(*plan_, 0, false);
  auto out = mapper.map_struct(0, v, 0, true);
  if (!out) return cdr_at_field(out.error(), ros1_->name);
  return out;
}

}  // namespace baton::bridge
