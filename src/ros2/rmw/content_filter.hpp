// A subscription's content filter (rmw_subscription_set_content_filter, or the
// content_filter_options of rmw_create_subscription): a DDS-SQL expression
// (content_filter_parse.hpp) parsed and checked against the message type once, when it is set,
// then evaluated on every sample before it is handed to the user.
//
// Evaluation reads the CDR bytes where they lie (in the publisher's shared memory, or the DDS
// sample), before anything is decoded: a filtered-out sample costs a walk to the fields the
// expression names, never a decode or a copy, and the same code serves C and C++ type supports
// (both encode to the same CDR), takes, serialized takes and loans alike. The bytes are not
// trusted: every length is checked against the sample (detail::CdrReader). A sample the filter
// cannot read (truncated, not little-endian CDR) passes it, so the take's decoder drops and logs
// it as it would without a filter.
//
// Semantics: numbers compare by value across integer and float types (64-bit integers exactly),
// strings byte-wise; a bool is 0 / 1 (TRUE / FALSE); a char field compares with a one-character
// string too; a float literal compared with a float32 field is rounded to float32 first, as the
// field's value was. An element index past a sequence's end makes its predicate false (NOT of it
// true). A comparison with NaN is false, except <> which is true.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "baton/common/result.hpp"
#include "baton/ros2/type_description.hpp"
#include "content_filter_parse.hpp"
#include "introspection_type.hpp"

namespace baton::ros2::rmw {

namespace content_filter {

// The CDR shape of a message type, built once from its introspection members: what the
// evaluator needs to find a field in the bytes.
enum class ValueKind : uint8_t { Bool, Signed, Unsigned, Float, Char, String, Other };

struct CdrStruct;
struct CdrMember {
  std::string name;
  ValueKind value = ValueKind::Other;  // of one element
  bool is_nested = false;
  bool is_wstring = false;
  uint32_t size = 0;  // primitive CDR size; 0 for strings / nested
  ArrayKind array = ArrayKind::None;
  uint32_t array_size = 0;
  uint32_t string_bound = 0;
  const CdrStruct* nested = nullptr;
};
struct CdrStruct {
  std::string name;  // "std_msgs/msg/Header"
  std::vector<CdrMember> members;
};

// One field reference resolved: which member at each level, and which element of an array.
struct BoundStep {
  uint32_t member = 0;
  bool indexed = false;
  uint32_t index = 0;
};
struct BoundField {
  std::vector<BoundStep> steps;
  ValueKind kind = ValueKind::Other;
  uint32_t size = 0;  // primitive size
};

// A constant operand after parameters are substituted.
struct Constant {
  ValueKind kind = ValueKind::Other;  // Signed (any integer), Float, String, Bool
  __int128 integer = 0;
  double real = 0;
  std::string text;
};

struct BoundOperand {
  bool is_field = false;
  uint32_t field = 0;
  Constant constant;
};

struct BoundNode {
  Node::Kind kind = Node::Kind::Compare;
  std::vector<BoundNode> children;
  RelOp op = RelOp::Eq;
  BoundOperand lhs, rhs, high;
  bool negated = false;
};

}  // namespace content_filter

class ContentFilter {
 public:
  // Parses `expression`, gives its %n the values `parameters` (each one literal), resolves its
  // field paths against `type`. The error names the position or the field and why ("at character
  // 7: ...", "field 'header.stamp.nanosec': ...").
  static Result<std::shared_ptr<const ContentFilter>, std::string> make(
      const IntrospectionType& type, const std::string& expression,
      const std::vector<std::string>& parameters);

  // True if the sample (CDR with its 4-byte encapsulation header) passes the filter, or cannot
  // be read by it (see the top of this file).
  bool matches(std::span<const uint8_t> sample) const;

  const std::string& expression() const { return expression_; }
  const std::vector<std::string>& parameters() const { return parameters_; }

  ContentFilter() = default;  // for make

 private:
  std::string expression_;
  std::vector<std::string> parameters_;
  std::string type_name_;
  std::vector<std::unique_ptr<content_filter::CdrStruct>> structs_;  // [0] is the message
  std::vector<content_filter::BoundField> fields_;
  content_filter::BoundNode root_;

  friend class ContentFilterBinder;
  friend class ContentFilterEvaluation;
};

}  // namespace baton::ros2::rmw
