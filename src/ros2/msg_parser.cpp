// .msg / .srv parser: see include/baton/ros2/msg_parser.hpp for the grammar covered.
#include "baton/ros2/msg_parser.hpp"

#include <cctype>
#include <charconv>
#include <optional>
#include <string>

namespace baton::ros2 {
namespace {

using ParseResult = Result<MessageDescription, Error<TypeLoadError>>;

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::optional<BaseType> primitive_from_name(std::string_view n) {
  static constexpr std::pair<std::string_view, BaseType> TABLE[] = {
      {"bool", BaseType::Bool},       {"byte", BaseType::Byte},     {"char", BaseType::Char},
      {"int8", BaseType::Int8},       {"uint8", BaseType::UInt8},   {"int16", BaseType::Int16},
      {"uint16", BaseType::UInt16},   {"int32", BaseType::Int32},   {"uint32", BaseType::UInt32},
      {"int64", BaseType::Int64},     {"uint64", BaseType::UInt64}, {"float32", BaseType::Float32},
      {"float64", BaseType::Float64}, {"string", BaseType::String}, {"wstring", BaseType::WString},
  };
  for (const auto& [name, t] : TABLE)
    if (name == n) return t;
  return std::nullopt;
}

std::optional<uint32_t> parse_u32(std::string_view s) {
  uint32_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

bool valid_identifier(std::string_view s) {
  if (s.empty() || !std::isalpha(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

struct Ctx {
  std::string_view package;
  std::string where;  // "pkg/msg/Name"
  int line_no = 0;
  std::string_view line;
  Unexpected<Error<TypeLoadError>> fail(const std::string& why) const {
    return unexpected(Error<TypeLoadError>{
        TypeLoadError::Syntax,
        where + ":" + std::to_string(line_no) + ": " + why + " in '" + std::string(line) + "'"});
  }
};

// Parses the type token ("uint8[<=4]", "string<=10[]", "geometry_msgs/Pose") into `f`.
std::optional<std::string> parse_type(std::string_view tok, const Ctx& ctx, FieldDescription& f) {
  // Array suffix.
  if (auto lb = tok.find('['); lb != std::string_view::npos) {
    if (tok.back() != ']') return "unterminated array suffix";
    std::string_view inside = tok.substr(lb + 1, tok.size() - lb - 2);
    tok = tok.substr(0, lb);
    if (inside.empty()) {
      f.array = ArrayKind::Unbounded;
    } else if (inside.substr(0, 2) == "<=") {
      auto n = parse_u32(inside.substr(2));
      if (!n) return "bad sequence bound";
      f.array = ArrayKind::Bounded;
      f.array_size = *n;
    } else {
      auto n = parse_u32(inside);
      if (!n || *n == 0) return "bad array size";
      f.array = ArrayKind::Fixed;
      f.array_size = *n;
    }
  }
  // String bound.
  if (auto le = tok.find("<="); le != std::string_view::npos) {
    auto n = parse_u32(tok.substr(le + 2));
    if (!n || *n == 0) return "bad string bound";
    tok = tok.substr(0, le);
    if (tok != "string" && tok != "wstring") return "only strings take a <= bound";
    f.string_bound = *n;
  }
  if (auto p = primitive_from_name(tok)) {
    f.type = *p;
    return std::nullopt;
  }
  // Legacy ROS 1 builtins still accepted by rosidl_adapter.
  if (tok == "time" || tok == "duration") {
    f.type = BaseType::Nested;
    f.nested_type_name =
        tok == "time" ? "builtin_interfaces/msg/Time" : "builtin_interfaces/msg/Duration";
    return std::nullopt;
  }
  f.type = BaseType::Nested;
  if (auto slash = tok.find('/'); slash != std::string_view::npos) {
    std::string_view pkg = tok.substr(0, slash);
    std::string_view name = tok.substr(slash + 1);
    if (name.substr(0, 4) == "msg/") name.remove_prefix(4);
    if (!valid_identifier(pkg) || !valid_identifier(name)) return "bad type name";
    f.nested_type_name = std::string(pkg) + "/msg/" + std::string(name);
  } else {
    if (!valid_identifier(tok)) return "bad type name";
    if (tok == "Header")
      f.nested_type_name = "std_msgs/msg/Header";
    else
      f.nested_type_name = std::string(ctx.package) + "/msg/" + std::string(tok);
  }
  return std::nullopt;
}

ParseResult parse_lines(std::string_view text, Ctx ctx, std::string_view interface,
                        std::string_view name) {
  MessageDescription d;
  d.package = std::string(ctx.package);
  d.interface = std::string(interface);
  d.name = std::string(name);
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view raw = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++ctx.line_no;
    ctx.line = trim(raw);
    std::string_view line = ctx.line;
    if (line.empty() || line.front() == '#') continue;
    // Type token, then the rest.
    size_t sp = line.find_first_of(" \t");
    if (sp == std::string_view::npos) return ctx.fail("expected '<type> <name>'");
    std::string_view type_tok = line.substr(0, sp);
    std::string_view rest = trim(line.substr(sp));
    FieldDescription f;
    if (auto why = parse_type(type_tok, ctx, f)) return ctx.fail(*why);
    // Constant: NAME=value (string constants keep '#' in their value; others lose comments).
    size_t eq = rest.find('=');
    size_t hash = rest.find('#');
    bool is_constant =
        eq != std::string_view::npos && (hash == std::string_view::npos || eq < hash);
    if (is_constant) {
      std::string_view cname = trim(rest.substr(0, eq));
      if (cname.find_first_of(" \t") != std::string_view::npos) is_constant = false;
    }
    if (is_constant) {
      if (f.type == BaseType::Nested || f.array != ArrayKind::None)
        return ctx.fail("constants must be of a primitive type");
      ConstantDescription c;
      c.name = std::string(trim(rest.substr(0, eq)));
      c.type = f.type;
      std::string_view value = rest.substr(eq + 1);
      if (f.type != BaseType::String && f.type != BaseType::WString) {
        if (auto h = value.find('#'); h != std::string_view::npos) value = value.substr(0, h);
      }
      c.value = std::string(trim(value));
      if (!valid_identifier(c.name)) return ctx.fail("bad constant name");
      d.constants.push_back(std::move(c));
      continue;
    }
    if (hash != std::string_view::npos && f.type != BaseType::String && f.type != BaseType::WString)
      rest = trim(rest.substr(0, hash));
    size_t name_end = rest.find_first_of(" \t#");
    std::string_view fname = rest.substr(0, name_end);  // the rest is a default value: ignored
    if (!valid_identifier(fname)) return ctx.fail("bad field name");
    f.name = std::string(fname);
    for (const auto& other : d.fields)
      if (other.name == f.name) return ctx.fail("duplicate field name");
    d.fields.push_back(std::move(f));
  }
  if (d.fields.empty()) {
    FieldDescription f;
    f.name = "structure_needs_at_least_one_member";
    f.type = BaseType::UInt8;
    d.fields.push_back(std::move(f));
  }
  return d;
}

}  // namespace

ParseResult parse_message(std::string_view text, std::string_view package,
                          std::string_view interface, std::string_view name) {
  Ctx ctx;
  ctx.package = package;
  ctx.where = std::string(package) + "/" + std::string(interface) + "/" + std::string(name);
  return parse_lines(text, ctx, interface, name);
}

Result<std::pair<MessageDescription, MessageDescription>, Error<TypeLoadError>> parse_service(
    std::string_view text, std::string_view package, std::string_view name) {
  // Find the separator line "---".
  size_t pos = 0;
  int line_no = 0;
  size_t sep_begin = std::string_view::npos, sep_end = 0;
  while (pos <= text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    ++line_no;
    if (trim(text.substr(pos, eol - pos)) == "---") {
      sep_begin = pos;
      sep_end = eol;
      break;
    }
    pos = eol + 1;
  }
  std::string where = std::string(package) + "/srv/" + std::string(name);
  if (sep_begin == std::string_view::npos)
    return unexpected(Error<TypeLoadError>{TypeLoadError::Syntax, where + ": no '---' line"});
  Ctx req_ctx;
  req_ctx.package = package;
  req_ctx.where = where;
  auto req = parse_lines(text.substr(0, sep_begin), req_ctx, "srv", std::string(name) + "_Request");
  if (!req) return unexpected(req.error());
  Ctx resp_ctx = req_ctx;
  resp_ctx.line_no = line_no;
  auto resp = parse_lines(sep_end < text.size() ? text.substr(sep_end + 1) : std::string_view{},
                          resp_ctx, "srv", std::string(name) + "_Response");
  if (!resp) return unexpected(resp.error());
  return std::pair{std::move(*req), std::move(*resp)};
}

}  // namespace baton::ros2
