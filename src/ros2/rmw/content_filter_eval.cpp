// ContentFilter::matches: walks the CDR bytes of one sample to the fields the expression names
// (skipping what lies before them) and evaluates the bound expression. The bytes come from shared
// memory or the network: every length is checked by detail::CdrReader before it is used, and an
// element count is checked against the bytes left before any loop runs over it (every element
// takes at least one byte), so a walk is bounded by the sample's size.
#include <cmath>
#include <optional>
#include <string_view>

#include "../cdr_stream.hpp"
#include "baton/ros2/cdr.hpp"
#include "content_filter.hpp"

namespace baton::ros2::rmw {

using namespace content_filter;  // NOLINT: this file is the evaluator of that namespace's types

namespace {

using detail::CdrReader;

// One value read from a sample, or a constant.
struct Value {
  bool is_string = false;
  bool is_real = false;
  __int128 integer = 0;
  double real = 0;
  std::string_view text;
};

Value value_of(const Constant& c) {
  Value v;
  if (c.kind == ValueKind::String) {
    v.is_string = true;
    v.text = c.text;
  } else if (c.kind == ValueKind::Float) {
    v.is_real = true;
    v.real = c.real;
  } else {
    v.integer = c.integer;
  }
  return v;
}

bool skip_struct(const CdrStruct& s, CdrReader& r, uint32_t depth);

// Skips `n` elements of member `m` (the array length already read, or 1).
bool skip_elements(const CdrMember& m, uint32_t n, CdrReader& r, uint32_t depth) {
  if (n == 0) return true;
  if (n > r.left()) return false;  // every element takes at least one byte
  if (m.is_nested) {
    for (uint32_t i = 0; i < n; ++i)
      if (!skip_struct(*m.nested, r, depth + 1)) return false;
    return true;
  }
  if (m.is_wstring) {
    for (uint32_t i = 0; i < n; ++i) {
      const uint8_t* units = nullptr;
      uint32_t count = 0;
      if (!r.get_wstring(m.string_bound, units, count)) return false;
    }
    return true;
  }
  if (m.value == ValueKind::String) {
    for (uint32_t i = 0; i < n; ++i) {
      std::string_view s;
      if (!r.get_string(m.string_bound, s)) return false;
    }
    return true;
  }
  const uint8_t* p = nullptr;
  return static_cast<bool>(r.get_primitive_array(n, m.size, m.value == ValueKind::Bool, p));
}

bool skip_member(const CdrMember& m, CdrReader& r, uint32_t depth) {
  uint32_t n = 1;
  if (m.array != ArrayKind::None && !r.get_array_length(m.array, m.array_size, n)) return false;
  return skip_elements(m, n, r, depth);
}

bool skip_struct(const CdrStruct& s, CdrReader& r, uint32_t depth) {
  if (depth > r.max_depth) return false;
  for (const CdrMember& m : s.members)
    if (!skip_member(m, r, depth)) return false;
  return true;
}

// The one primitive of `m` at the reader's position, as a Value.
bool read_primitive(const CdrMember& m, CdrReader& r, Value& v) {
  uint8_t raw[8] = {};
  if (!r.get_primitive(raw, m.size, m.value == ValueKind::Bool)) return false;
  auto load = [&raw]<typename T>(T) {
    T x;
    std::memcpy(&x, raw, sizeof x);
    return x;
  };
  switch (m.value) {
    case ValueKind::Float:
      v.is_real = true;
      v.real = m.size == 4 ? static_cast<double>(load(float{})) : load(double{});
      return true;
    case ValueKind::Signed:
      v.integer = m.size == 1   ? load(int8_t{})
                  : m.size == 2 ? load(int16_t{})
                  : m.size == 4 ? load(int32_t{})
                                : load(int64_t{});
      return true;
    default:  // Bool, Char, Unsigned
      v.integer = m.size == 1   ? load(uint8_t{})
                  : m.size == 2 ? load(uint16_t{})
                  : m.size == 4 ? load(uint32_t{})
                                : load(uint64_t{});
      return true;
  }
}

enum class Order : uint8_t { Less, Equal, Greater, Unordered };

Order compare(const Value& a, const Value& b) {
  if (a.is_string || b.is_string) {  // the binder made both strings
    const int c = a.text.compare(b.text);
    return c < 0 ? Order::Less : c > 0 ? Order::Greater : Order::Equal;
  }
  if (!a.is_real && !b.is_real)
    return a.integer < b.integer   ? Order::Less
           : a.integer > b.integer ? Order::Greater
                                   : Order::Equal;
  const double x = a.is_real ? a.real : static_cast<double>(a.integer);
  const double y = b.is_real ? b.real : static_cast<double>(b.integer);
  if (std::isnan(x) || std::isnan(y)) return Order::Unordered;
  return x < y ? Order::Less : x > y ? Order::Greater : Order::Equal;
}

// SQL LIKE: % matches any run of characters (none included), _ exactly one. Greedy with one
// backtrack point per %: linear in practice, at most |text| * |pattern| steps.
bool like(std::string_view text, std::string_view pattern) {
  size_t t = 0, p = 0;
  size_t star = std::string_view::npos, star_t = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '_' || pattern[p] == text[t])) {
      ++t, ++p;
    } else if (p < pattern.size() && pattern[p] == '%') {
      star = p++;
      star_t = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++star_t;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '%') ++p;
  return p == pattern.size();
}

bool apply(RelOp op, const Value& a, const Value& b) {
  if (op == RelOp::Like) return like(a.text, b.text);
  const Order o = compare(a, b);
  switch (op) {
    case RelOp::Eq:
      return o == Order::Equal;
    case RelOp::Ne:
      return o != Order::Equal;
    case RelOp::Lt:
      return o == Order::Less;
    case RelOp::Le:
      return o == Order::Less || o == Order::Equal;
    case RelOp::Gt:
      return o == Order::Greater;
    case RelOp::Ge:
      return o == Order::Greater || o == Order::Equal;
    case RelOp::Like:
      break;
  }
  return false;
}

}  // namespace

// One evaluation of a filter on one sample.
class ContentFilterEvaluation {
 public:
  ContentFilterEvaluation(const ContentFilter& f, const CdrReader& start) : f_(f), start_(start) {}

  bool unreadable = false;  // some field could not be read: the sample passes (see the header)

  bool eval(const BoundNode& n) {
    switch (n.kind) {
      case Node::Kind::And:
        for (const BoundNode& c : n.children)
          if (!eval(c)) return false;
        return true;
      case Node::Kind::Or:
        for (const BoundNode& c : n.children)
          if (eval(c)) return true;
        return false;
      case Node::Kind::Not:
        return !eval(n.children[0]);
      case Node::Kind::Compare: {
        const auto a = operand(n.lhs), b = operand(n.rhs);
        return a && b && apply(n.op, *a, *b);
      }
      case Node::Kind::Between: {
        const auto v = operand(n.lhs), low = operand(n.rhs), high = operand(n.high);
        if (!v || !low || !high) return false;
        const bool inside = apply(RelOp::Ge, *v, *low) && apply(RelOp::Le, *v, *high);
        return n.negated ? !inside : inside;
      }
    }
    return false;
  }

 private:
  std::optional<Value> operand(const BoundOperand& o) {
    if (!o.is_field) return value_of(o.constant);
    return read(f_.fields_[o.field]);
  }

  // The field's value; none when an index is past its sequence's end or the bytes do not hold it
  // (then `unreadable` is set too).
  std::optional<Value> read(const BoundField& field) {
    CdrReader r = start_;
    const CdrStruct* s = f_.structs_[0].get();
    for (size_t k = 0; k < field.steps.size(); ++k) {
      const BoundStep& step = field.steps[k];
      for (uint32_t j = 0; j < step.member; ++j)
        if (!skip_member(s->members[j], r, k)) return fail();
      const CdrMember& m = s->members[step.member];
      if (m.array != ArrayKind::None) {
        uint32_t n = 0;
        if (!r.get_array_length(m.array, m.array_size, n)) return fail();
        if (step.index >= n) return std::nullopt;  // no such element: the predicate is false
        if (!skip_elements(m, step.index, r, k)) return fail();
      }
      if (k + 1 < field.steps.size()) {
        s = m.nested;
        continue;
      }
      Value v;
      if (m.value == ValueKind::String) {
        v.is_string = true;
        if (!r.get_string(m.string_bound, v.text)) return fail();
      } else if (!read_primitive(m, r, v)) {
        return fail();
      }
      return v;
    }
    return fail();
  }

  std::optional<Value> fail() {
    unreadable = true;
    return std::nullopt;
  }

  const ContentFilter& f_;
  const CdrReader& start_;
};

bool ContentFilter::matches(std::span<const uint8_t> sample) const {
  CdrReader start;
  if (!detail::open_cdr(sample, DecodeLimits{}, type_name_, start)) return true;
  ContentFilterEvaluation evaluation(*this, start);
  const bool pass = evaluation.eval(root_);
  return pass || evaluation.unreadable;
}

}  // namespace baton::ros2::rmw
