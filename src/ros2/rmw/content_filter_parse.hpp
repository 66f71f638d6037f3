// The syntax of a content filter expression: the subset of DDS-SQL that the DDS specification
// (annex B, "Syntax for queries and filters") gives content-filtered topics, parsed into a tree.
// Nothing here knows the message type: content_filter.hpp resolves the field paths against it
// and gives the %n parameters their values.
//
//   condition  := term (OR term)*
//   term       := factor (AND factor)*
//   factor     := NOT factor | '(' condition ')' | predicate
//   predicate  := operand relop operand                   (a field on at least one side)
//               | field [NOT] BETWEEN operand AND operand
//   relop      := '=' | '<>' | '!=' | '<' | '<=' | '>' | '>=' | LIKE
//   operand    := field | literal | '%'0..99
//   field      := name ['[' index ']'] ('.' name ['[' index ']'])*
//   literal    := integer (decimal or 0x hex, signed) | float | 'string' | TRUE | FALSE
//
// Keywords are case-insensitive. A string has no escapes (DDS has none): it ends at the next
// single quote. LIKE patterns use % (any run of characters) and _ (one character).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "baton/common/result.hpp"

namespace baton::ros2::rmw::content_filter {

// A constant of the expression (or the value a %n parameter gives).
struct Literal {
  enum class Kind : uint8_t { Integer, Float, String, Boolean };
  Kind kind = Kind::Integer;
  __int128 integer = 0;  // Integer (any int64 or uint64 value); Boolean as 0 / 1
  double real = 0;       // Float
  std::string text;      // String
};

struct FieldStep {
  std::string name;
  bool indexed = false;
  uint32_t index = 0;
};

struct FieldPath {
  std::vector<FieldStep> steps;
  std::string text;     // as written, for error messages ("header.stamp.sec")
  size_t position = 0;  // of its first character in the expression
};

struct Operand {
  enum class Kind : uint8_t { Field, Literal, Parameter };
  Kind kind = Kind::Literal;
  uint32_t field = 0;      // Field: index into Expression::fields
  Literal literal;         // Literal
  uint32_t parameter = 0;  // Parameter: n of %n
  size_t position = 0;
};

enum class RelOp : uint8_t { Eq, Ne, Lt, Le, Gt, Ge, Like };

struct Node {
  enum class Kind : uint8_t { And, Or, Not, Compare, Between };
  Kind kind = Kind::Compare;
  std::vector<Node> children;  // And, Or (two or more), Not (one)
  RelOp op = RelOp::Eq;        // Compare: lhs op rhs
  Operand lhs, rhs;            // Compare; Between: lhs BETWEEN rhs AND high
  Operand high;                // Between
  bool negated = false;        // Between: NOT BETWEEN
  size_t position = 0;
};

struct Expression {
  Node root;
  std::vector<FieldPath> fields;  // every field reference, in order of appearance
};

struct ParseError {
  size_t position = 0;  // character offset in the expression
  std::string message;
  // "at character <position + 1>: <message>".
  std::string describe() const;
};

// Limits that keep a hostile expression from exhausting the stack or memory.
inline constexpr size_t MAX_EXPRESSION_BYTES = 64 * 1024;
inline constexpr uint32_t MAX_NESTING = 100;  // parentheses and NOTs
inline constexpr uint32_t MAX_PARAMETERS = 100;

Result<Expression, ParseError> parse_expression(std::string_view text);

// A %n parameter's value: one literal, as it would be written in the expression ("42", "-1.5",
// "'text'", "TRUE").
Result<Literal, ParseError> parse_literal(std::string_view text);

}  // namespace baton::ros2::rmw::content_filter
