// ContentFilter::make: parse the expression, give the %n parameters their values, resolve every
// field path against the message type's CDR shape and check that each comparison compares like
// with like. Everything that can be wrong with a filter is found here, once, so the evaluator
// (content_filter_eval.cpp) only reads bytes and compares.
#include <string>
#include <unordered_map>
#include <utility>

#include "content_filter.hpp"
#include "introspection_shape.hpp"

namespace baton::ros2::rmw {

using namespace content_filter;  // NOLINT: this file is the binder of that namespace's types

class ContentFilterBinder {
 public:
  ContentFilterBinder(ContentFilter& f, const Expression& e, const std::vector<std::string>& params)
      : f_(f), e_(e), params_(params) {}

  // The CDR shape of the message type (structs_[0]) and of every nested type it uses.
  Result<bool, std::string> build(const IntrospectionType& type) {
    bool built = false;
    if (const auto* m = type.c()) built = build_struct<CLayout>(*m).has_value();
    if (const auto* m = type.cpp()) built = build_struct<CppLayout>(*m).has_value();
    if (!type) error_ = "the type support has no introspection members";
    if (!built) return unexpected(error_);
    return true;
  }

  Result<bool, std::string> bind() {
    for (const FieldPath& path : e_.fields) {
      auto field = resolve(path);
      if (!field) return unexpected(field.error());
      f_.fields_.push_back(std::move(*field));
    }
    auto root = bind_node(e_.root);
    if (!root) return unexpected(root.error());
    f_.root_ = std::move(*root);
    return true;
  }

 private:
  template <typename L>
  Result<const CdrStruct*, std::string> build_struct(const typename L::Members& t) {
    if (auto it = built_.find(&t); it != built_.end()) return it->second;
    auto owned = std::make_unique<CdrStruct>();
    CdrStruct* s = owned.get();
    s->name = interface_name(t.message_namespace_, t.message_name_);
    f_.structs_.push_back(std::move(owned));
    built_.emplace(&t, s);
    for (uint32_t i = 0; i < t.member_count_; ++i) {
      const typename L::Member& m = t.members_[i];
      const FieldShape<L> shape = shape_of<L>(m);
      CdrMember c;
      c.name = m.name_ != nullptr ? m.name_ : "";
      c.array = shape.array;
      c.array_size = shape.array_size;
      c.string_bound = static_cast<uint32_t>(m.string_upper_bound_);
      c.size = shape.size;
      c.value = value_kind(m.type_id_);
      switch (shape.kind) {
        case FieldKind::Primitive:
        case FieldKind::Bool:
        case FieldKind::String:
          break;
        case FieldKind::WString:
          c.is_wstring = true;
          break;
        case FieldKind::Nested: {
          auto nested = build_struct<L>(*shape.nested);
          if (!nested) return nested;
          c.is_nested = true;
          c.nested = *nested;
          break;
        }
        case FieldKind::Unsupported:
          error_ = s->name + " member '" + c.name + "' has a type (id " +
                   std::to_string(m.type_id_) + ") that rmw_baton_cpp does not encode";
          return unexpected(error_);
      }
      s->members.push_back(std::move(c));
    }
    return static_cast<const CdrStruct*>(s);
  }

  static ValueKind value_kind(uint8_t type_id) {
    switch (type_id) {
      case rosidl_typesupport_introspection_c__ROS_TYPE_BOOLEAN:
        return ValueKind::Bool;
      case rosidl_typesupport_introspection_c__ROS_TYPE_CHAR:
        return ValueKind::Char;
      case rosidl_typesupport_introspection_c__ROS_TYPE_INT8:
      case rosidl_typesupport_introspection_c__ROS_TYPE_INT16:
      case rosidl_typesupport_introspection_c__ROS_TYPE_INT32:
      case rosidl_typesupport_introspection_c__ROS_TYPE_INT64:
        return ValueKind::Signed;
      case rosidl_typesupport_introspection_c__ROS_TYPE_OCTET:
      case rosidl_typesupport_introspection_c__ROS_TYPE_UINT8:
      case rosidl_typesupport_introspection_c__ROS_TYPE_WCHAR:
      case rosidl_typesupport_introspection_c__ROS_TYPE_UINT16:
      case rosidl_typesupport_introspection_c__ROS_TYPE_UINT32:
      case rosidl_typesupport_introspection_c__ROS_TYPE_UINT64:
        return ValueKind::Unsigned;
      case rosidl_typesupport_introspection_c__ROS_TYPE_FLOAT:
      case rosidl_typesupport_introspection_c__ROS_TYPE_DOUBLE:
        return ValueKind::Float;
      case rosidl_typesupport_introspection_c__ROS_TYPE_STRING:
        return ValueKind::String;
      default:
        return ValueKind::Other;
    }
  }

  static std::string member_list(const CdrStruct& s) {
    std::string out;
    for (const CdrMember& m : s.members) out += (out.empty() ? "" : ", ") + m.name;
    return out;
  }

  static std::string type_word(ValueKind k) {
    switch (k) {
      case ValueKind::Bool:
        return "a bool";
      case ValueKind::Signed:
      case ValueKind::Unsigned:
        return "an integer";
      case ValueKind::Float:
        return "a float";
      case ValueKind::Char:
        return "a char";
      case ValueKind::String:
        return "a string";
      case ValueKind::Other:
        break;
    }
    return "a value";
  }

  Result<BoundField, std::string> resolve(const FieldPath& path) {
    const std::string where =
        "at character " + std::to_string(path.position + 1) + ": field '" + path.text + "'";
    BoundField out;
    const CdrStruct* s = f_.structs_[0].get();
    for (size_t k = 0; k < path.steps.size(); ++k) {
      const FieldStep& step = path.steps[k];
      uint32_t index = 0;
      while (index < s->members.size() && s->members[index].name != step.name) ++index;
      if (index == s->members.size())
        return unexpected(where + ": " + s->name + " has no member '" + step.name +
                          "' (it has: " + member_list(*s) + ")");
      const CdrMember& m = s->members[index];
      BoundStep b{index, step.indexed, step.index};
      if (m.array != ArrayKind::None && !step.indexed)
        return unexpected(where + ": '" + step.name +
                          "' is an array or sequence: compare one element, e.g. '" + step.name +
                          "[0]'");
      if (m.array == ArrayKind::None && step.indexed)
        return unexpected(where + ": '" + step.name + "' is not an array");
      if (m.array == ArrayKind::Fixed && step.index >= m.array_size)
        return unexpected(where + ": index " + std::to_string(step.index) +
                          " is past the end of '" + step.name + "' (" +
                          std::to_string(m.array_size) + " elements)");
      out.steps.push_back(b);
      const bool last = k + 1 == path.steps.size();
      if (!last) {
        if (!m.is_nested)
          return unexpected(where + ": '" + step.name +
                            "' is not a message, so it has no member '" + path.steps[k + 1].name +
                            "'");
        s = m.nested;
        continue;
      }
      if (m.is_nested)
        return unexpected(where + ": '" + step.name + "' is a message (" + m.nested->name +
                          "): compare one of its members (" + member_list(*m.nested) + ")");
      if (m.is_wstring || m.value == ValueKind::Other)
        return unexpected(where + ": wstring fields cannot be filtered on");
      out.kind = m.value;
      out.size = m.size;
    }
    return out;
  }

  Result<BoundOperand, std::string> bind_operand(const Operand& o) {
    BoundOperand b;
    const Literal* literal = &o.literal;
    Literal parameter;
    switch (o.kind) {
      case Operand::Kind::Field:
        b.is_field = true;
        b.field = o.field;
        return b;
      case Operand::Kind::Parameter: {
        const std::string where =
            "at character " + std::to_string(o.position + 1) + ": %" + std::to_string(o.parameter);
        if (o.parameter >= params_.size())
          return unexpected(where + " has no value (" + std::to_string(params_.size()) +
                            " expression parameters given)");
        auto parsed = parse_literal(params_[o.parameter]);
        if (!parsed)
          return unexpected(where + ": its value '" + params_[o.parameter] +
                            "' is not one value: " + parsed.error().describe() +
                            " (a string parameter is written in single quotes: 'text')");
        parameter = std::move(*parsed);
        literal = &parameter;
        break;
      }
      case Operand::Kind::Literal:
        break;
    }
    Constant& c = b.constant;
    switch (literal->kind) {
      case Literal::Kind::Integer:
        c.kind = ValueKind::Signed;
        c.integer = literal->integer;
        break;
      case Literal::Kind::Boolean:
        c.kind = ValueKind::Bool;
        c.integer = literal->integer;
        break;
      case Literal::Kind::Float:
        c.kind = ValueKind::Float;
        c.real = literal->real;
        break;
      case Literal::Kind::String:
        c.kind = ValueKind::String;
        c.text = literal->text;
        break;
    }
    return b;
  }

  ValueKind kind_of(const BoundOperand& o) const {
    return o.is_field ? f_.fields_[o.field].kind : o.constant.kind;
  }
  std::string describe(const BoundOperand& o) const {
    if (o.is_field)
      return "field '" + e_.fields[o.field].text + "' (" + type_word(kind_of(o)) + ")";
    return type_word(kind_of(o)) + " value";
  }

  // Both sides of a comparison compare like with like; a char field and a one-character string
  // constant compare as the character's code (the constant is rewritten).
  Result<bool, std::string> check_pair(BoundOperand& a, BoundOperand& b, size_t position) {
    auto numeric = [](ValueKind k) { return k != ValueKind::String && k != ValueKind::Other; };
    for (auto [field, other] : {std::pair{&a, &b}, std::pair{&b, &a}}) {
      if (field->is_field && kind_of(*field) == ValueKind::Char && !other->is_field &&
          other->constant.kind == ValueKind::String && other->constant.text.size() == 1) {
        other->constant.kind = ValueKind::Unsigned;
        other->constant.integer = static_cast<unsigned char>(other->constant.text[0]);
      }
    }
    // A float32 field holds its value rounded to float: so is the constant it is compared with
    // ("x = 3.14159" selects the float32 3.14159f, as DDS implementations compare it).
    for (auto [field, other] : {std::pair{&a, &b}, std::pair{&b, &a}}) {
      if (field->is_field && kind_of(*field) == ValueKind::Float &&
          f_.fields_[field->field].size == 4 && !other->is_field &&
          other->constant.kind == ValueKind::Float)
        other->constant.real = static_cast<double>(static_cast<float>(other->constant.real));
    }
    const ValueKind ka = kind_of(a), kb = kind_of(b);
    if ((numeric(ka) && numeric(kb)) || (ka == ValueKind::String && kb == ValueKind::String))
      return true;
    return unexpected("at character " + std::to_string(position + 1) + ": cannot compare " +
                      describe(a) + " with " + describe(b));
  }

  Result<BoundNode, std::string> bind_node(const Node& n) {
    BoundNode b;
    b.kind = n.kind;
    b.op = n.op;
    b.negated = n.negated;
    for (const Node& child : n.children) {
      auto c = bind_node(child);
      if (!c) return c;
      b.children.push_back(std::move(*c));
    }
    if (n.kind != Node::Kind::Compare && n.kind != Node::Kind::Between) return b;
    for (auto [from, to] : {std::pair{&n.lhs, &b.lhs}, std::pair{&n.rhs, &b.rhs}}) {
      auto o = bind_operand(*from);
      if (!o) return unexpected(o.error());
      *to = std::move(*o);
    }
    if (n.kind == Node::Kind::Between) {
      auto high = bind_operand(n.high);
      if (!high) return unexpected(high.error());
      b.high = std::move(*high);
      if (auto st = check_pair(b.lhs, b.rhs, n.position); !st) return unexpected(st.error());
      if (auto st = check_pair(b.lhs, b.high, n.position); !st) return unexpected(st.error());
      return b;
    }
    if (n.op == RelOp::Like) {
      if (kind_of(b.lhs) != ValueKind::String || kind_of(b.rhs) != ValueKind::String)
        return unexpected("at character " + std::to_string(n.position + 1) +
                          ": LIKE compares a string field with a string pattern, not " +
                          describe(b.lhs) + " with " + describe(b.rhs));
      return b;
    }
    if (auto st = check_pair(b.lhs, b.rhs, n.position); !st) return unexpected(st.error());
    return b;
  }

  ContentFilter& f_;
  const Expression& e_;
  const std::vector<std::string>& params_;
  std::unordered_map<const void*, const CdrStruct*> built_;
  std::string error_;
};

Result<std::shared_ptr<const ContentFilter>, std::string> ContentFilter::make(
    const IntrospectionType& type, const std::string& expression,
    const std::vector<std::string>& parameters) {
  if (parameters.size() > MAX_PARAMETERS)
    return unexpected(std::to_string(parameters.size()) + " expression parameters: at most " +
                      std::to_string(MAX_PARAMETERS));
  auto parsed = parse_expression(expression);
  if (!parsed) return unexpected(parsed.error().describe());
  auto filter = std::make_shared<ContentFilter>();
  filter->expression_ = expression;
  filter->parameters_ = parameters;
  filter->type_name_ = type.name();
  ContentFilterBinder binder(*filter, *parsed, parameters);
  if (auto st = binder.build(type); !st) return unexpected(st.error());
  if (auto st = binder.bind(); !st) return unexpected(st.error());
  return std::shared_ptr<const ContentFilter>(std::move(filter));
}

}  // namespace baton::ros2::rmw
