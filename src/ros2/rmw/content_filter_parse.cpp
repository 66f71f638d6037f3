// Content filter expressions: tokenizer and recursive-descent parser (grammar in
// content_filter_parse.hpp). Recursion happens only at parentheses and NOT, both counted against
// MAX_NESTING; AND / OR chains are flat lists, so no input can run the stack out.
#include "content_filter_parse.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <utility>

namespace baton::ros2::rmw::content_filter {

std::string ParseError::describe() const {
  return "at character " + std::to_string(position + 1) + ": " + message;
}

namespace {

struct Token {
  enum class Kind : uint8_t {
    End,
    Name,       // field name part (keywords are their own kinds)
    Literal,    // number, string, TRUE / FALSE
    Parameter,  // %n
    Op,         // = <> != < <= > >=
    LParen,
    RParen,
    LBracket,
    RBracket,
    Dot,
    And,
    Or,
    Not,
    Between,
    Like,
  };
  Kind kind = Kind::End;
  size_t position = 0;
  std::string_view text;
  Literal literal;     // Literal
  uint32_t index = 0;  // Parameter: n; Literal integers in brackets are read from `literal`
  RelOp op = RelOp::Eq;
};

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::toupper(static_cast<unsigned char>(a[i])) !=
        std::toupper(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  Result<Token, ParseError> next() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    Token t;
    t.position = pos_;
    if (pos_ >= text_.size()) return t;  // End
    const char c = text_[pos_];
    const char d = pos_ + 1 < text_.size() ? text_[pos_ + 1] : '\0';
    auto single = [&](Token::Kind k) {
      t.kind = k;
      t.text = text_.substr(pos_++, 1);
      return t;
    };
    switch (c) {
      case '(':
        return single(Token::Kind::LParen);
      case ')':
        return single(Token::Kind::RParen);
      case '[':
        return single(Token::Kind::LBracket);
      case ']':
        return single(Token::Kind::RBracket);
      case '=':
        t.op = RelOp::Eq;
        return single(Token::Kind::Op);
      case '<':
      case '>':
      case '!': {
        t.kind = Token::Kind::Op;
        size_t len = 1;
        if (c == '<' && d == '>') {
          t.op = RelOp::Ne, len = 2;
        } else if (c == '!' && d == '=') {
          t.op = RelOp::Ne, len = 2;
        } else if (c == '!') {
          return fail(pos_, "'!' must be followed by '=' (or write <>)");
        } else if (d == '=') {
          t.op = c == '<' ? RelOp::Le : RelOp::Ge, len = 2;
        } else {
          t.op = c == '<' ? RelOp::Lt : RelOp::Gt;
        }
        t.text = text_.substr(pos_, len);
        pos_ += len;
        return t;
      }
      case '%':
        return parameter(t);
      case '\'':
        return string(t);
      default:
        break;
    }
    if (is_digit(c) || ((c == '-' || c == '+' || c == '.') && (is_digit(d) || d == '.')))
      return number(t);
    if (c == '.') return single(Token::Kind::Dot);
    if (is_name_start(c)) return word(t);
    return fail(pos_, std::string("unexpected character '") + c + "'");
  }

 private:
  static Unexpected<ParseError> fail(size_t at, std::string why) {
    return unexpected(ParseError{at, std::move(why)});
  }

  Result<Token, ParseError> parameter(Token& t) {
    size_t end = pos_ + 1;
    while (end < text_.size() && is_digit(text_[end]) && end - pos_ <= 3) ++end;
    if (end == pos_ + 1) return fail(pos_, "'%' must be followed by a parameter number 0..99");
    if (end - pos_ > 3 || (end < text_.size() && is_digit(text_[end])))
      return fail(pos_, "parameter numbers go from %0 to %99");
    t.kind = Token::Kind::Parameter;
    t.index =
        static_cast<uint32_t>(std::stoul(std::string(text_.substr(pos_ + 1, end - pos_ - 1))));
    t.text = text_.substr(pos_, end - pos_);
    pos_ = end;
    return t;
  }

  Result<Token, ParseError> string(Token& t) {
    const size_t close = text_.find('\'', pos_ + 1);
    if (close == std::string_view::npos) return fail(pos_, "string not closed (missing ')");
    t.kind = Token::Kind::Literal;
    t.literal.kind = Literal::Kind::String;
    t.literal.text = std::string(text_.substr(pos_ + 1, close - pos_ - 1));
    t.text = text_.substr(pos_, close + 1 - pos_);
    pos_ = close + 1;
    return t;
  }

  Result<Token, ParseError> number(Token& t) {
    const size_t start = pos_;
    size_t p = pos_;
    const bool negative = text_[p] == '-';
    if (text_[p] == '-' || text_[p] == '+') ++p;
    t.kind = Token::Kind::Literal;
    // Hexadecimal integer.
    if (p + 1 < text_.size() && text_[p] == '0' && (text_[p + 1] == 'x' || text_[p + 1] == 'X')) {
      size_t q = p + 2;
      unsigned __int128 v = 0;
      while (q < text_.size() && std::isxdigit(static_cast<unsigned char>(text_[q]))) {
        v = v * 16 + static_cast<unsigned>(std::isdigit(static_cast<unsigned char>(text_[q]))
                                               ? text_[q] - '0'
                                               : std::tolower(text_[q]) - 'a' + 10);
        if (v > UINT64_MAX) return fail(start, "integer out of the 64-bit range");
        ++q;
      }
      if (q == p + 2) return fail(start, "'0x' must be followed by hexadecimal digits");
      if (q < text_.size() && is_name_char(text_[q]))
        return fail(q, "unexpected character after a number");
      t.literal.kind = Literal::Kind::Integer;
      t.literal.integer = negative ? -static_cast<__int128>(v) : static_cast<__int128>(v);
      return finish_integer(t, start, q);
    }
    size_t q = p;
    while (q < text_.size() && is_digit(text_[q])) ++q;
    bool real = false;
    if (q < text_.size() && text_[q] == '.') {
      real = true;
      ++q;
      while (q < text_.size() && is_digit(text_[q])) ++q;
    }
    if (q < text_.size() && (text_[q] == 'e' || text_[q] == 'E')) {
      size_t e = q + 1;
      if (e < text_.size() && (text_[e] == '+' || text_[e] == '-')) ++e;
      if (e >= text_.size() || !is_digit(text_[e])) return fail(q, "exponent without digits");
      while (e < text_.size() && is_digit(text_[e])) ++e;
      real = true;
      q = e;
    }
    if (q < text_.size() && is_name_char(text_[q]))
      return fail(q, "unexpected character after a number");
    const std::string digits(text_.substr(start, q - start));
    if (digits == "." || digits == "-." || digits == "+.") return fail(start, "not a number");
    if (real) {
      errno = 0;
      const double v = std::strtod(digits.c_str(), nullptr);
      if (errno == ERANGE && std::isinf(v)) return fail(start, "float out of range");
      t.literal.kind = Literal::Kind::Float;
      t.literal.real = v;
    } else {
      unsigned __int128 v = 0;
      for (size_t i = p; i < q; ++i) {
        v = v * 10 + static_cast<unsigned>(text_[i] - '0');
        if (v > UINT64_MAX) return fail(start, "integer out of the 64-bit range");
      }
      t.literal.kind = Literal::Kind::Integer;
      t.literal.integer = negative ? -static_cast<__int128>(v) : static_cast<__int128>(v);
    }
    return finish_integer(t, start, q);
  }

  Result<Token, ParseError> finish_integer(Token& t, size_t start, size_t end) {
    if (t.literal.kind == Literal::Kind::Integer && t.literal.integer < INT64_MIN)
      return fail(start, "integer out of the 64-bit range");
    t.text = text_.substr(start, end - start);
    pos_ = end;
    return t;
  }

  Result<Token, ParseError> word(Token& t) {
    size_t end = pos_;
    while (end < text_.size() && is_name_char(text_[end])) ++end;
    t.text = text_.substr(pos_, end - pos_);
    pos_ = end;
    static constexpr std::pair<const char*, Token::Kind> KEYWORDS[] = {
        {"AND", Token::Kind::And},         {"OR", Token::Kind::Or},     {"NOT", Token::Kind::Not},
        {"BETWEEN", Token::Kind::Between}, {"LIKE", Token::Kind::Like},
    };
    for (const auto& [word, kind] : KEYWORDS)
      if (iequals(t.text, word)) {
        t.kind = kind;
        return t;
      }
    if (iequals(t.text, "TRUE") || iequals(t.text, "FALSE")) {
      t.kind = Token::Kind::Literal;
      t.literal.kind = Literal::Kind::Boolean;
      t.literal.integer = iequals(t.text, "TRUE") ? 1 : 0;
      return t;
    }
    t.kind = Token::Kind::Name;
    return t;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

std::string describe(const Token& t) {
  if (t.kind == Token::Kind::End) return "the end of the expression";
  return "'" + std::string(t.text) + "'";
}

class Parser {
 public:
  explicit Parser(std::string_view text) : lexer_(text) {}

  Result<Expression, ParseError> run() {
    if (auto st = advance(); !st) return unexpected(st.error());
    auto root = condition(0);
    if (!root) return unexpected(root.error());
    if (tok_.kind != Token::Kind::End)
      return fail(tok_.position, "expected AND, OR or the end, found " + describe(tok_));
    out_.root = std::move(*root);
    return std::move(out_);
  }

 private:
  using NodeResult = Result<Node, ParseError>;

  static Unexpected<ParseError> fail(size_t at, std::string why) {
    return unexpected(ParseError{at, std::move(why)});
  }

  Result<bool, ParseError> advance() {
    auto t = lexer_.next();
    if (!t) return unexpected(t.error());
    tok_ = std::move(*t);
    return true;
  }

  // An AND / OR list of what `parse_one` reads, flattened into one node.
  template <typename ParseOne>
  NodeResult list(Token::Kind separator, Node::Kind kind, ParseOne parse_one) {
    auto first = parse_one();
    if (!first) return first;
    if (tok_.kind != separator) return first;
    Node n;
    n.kind = kind;
    n.position = first->position;
    n.children.push_back(std::move(*first));
    while (tok_.kind == separator) {
      if (auto st = advance(); !st) return unexpected(st.error());
      auto next = parse_one();
      if (!next) return next;
      n.children.push_back(std::move(*next));
    }
    return n;
  }

  NodeResult condition(uint32_t depth) {
    return list(Token::Kind::Or, Node::Kind::Or, [&] {
      return list(Token::Kind::And, Node::Kind::And, [&] { return factor(depth); });
    });
  }

  NodeResult factor(uint32_t depth) {
    if (depth >= MAX_NESTING)
      return fail(tok_.position,
                  "nested deeper than " + std::to_string(MAX_NESTING) + " parentheses / NOTs");
    const size_t at = tok_.position;
    if (tok_.kind == Token::Kind::Not) {
      if (auto st = advance(); !st) return unexpected(st.error());
      auto inner = factor(depth + 1);
      if (!inner) return inner;
      Node n;
      n.kind = Node::Kind::Not;
      n.position = at;
      n.children.push_back(std::move(*inner));
      return n;
    }
    if (tok_.kind == Token::Kind::LParen) {
      if (auto st = advance(); !st) return unexpected(st.error());
      auto inner = condition(depth + 1);
      if (!inner) return inner;
      if (tok_.kind != Token::Kind::RParen)
        return fail(tok_.position, "expected ')', found " + describe(tok_));
      if (auto st = advance(); !st) return unexpected(st.error());
      return inner;
    }
    return predicate();
  }

  NodeResult predicate() {
    Node n;
    n.position = tok_.position;
    auto lhs = operand();
    if (!lhs) return unexpected(lhs.error());
    n.lhs = std::move(*lhs);
    bool negated = false;
    if (tok_.kind == Token::Kind::Not) {  // NOT BETWEEN
      negated = true;
      if (auto st = advance(); !st) return unexpected(st.error());
      if (tok_.kind != Token::Kind::Between)
        return fail(tok_.position, "expected BETWEEN after NOT, found " + describe(tok_));
    }
    if (tok_.kind == Token::Kind::Between) {
      if (n.lhs.kind != Operand::Kind::Field)
        return fail(n.lhs.position, "BETWEEN needs a field on its left");
      if (auto st = advance(); !st) return unexpected(st.error());
      auto low = operand();
      if (!low) return unexpected(low.error());
      if (tok_.kind != Token::Kind::And)
        return fail(tok_.position, "expected AND in BETWEEN, found " + describe(tok_));
      if (auto st = advance(); !st) return unexpected(st.error());
      auto high = operand();
      if (!high) return unexpected(high.error());
      n.kind = Node::Kind::Between;
      n.negated = negated;
      n.rhs = std::move(*low);
      n.high = std::move(*high);
      return n;
    }
    if (tok_.kind == Token::Kind::Op) {
      n.op = tok_.op;
    } else if (tok_.kind == Token::Kind::Like) {
      n.op = RelOp::Like;
    } else {
      return fail(tok_.position,
                  "expected a comparison (=, <>, <, <=, >, >=, LIKE, BETWEEN), "
                  "found " +
                      describe(tok_));
    }
    if (auto st = advance(); !st) return unexpected(st.error());
    auto rhs = operand();
    if (!rhs) return unexpected(rhs.error());
    n.kind = Node::Kind::Compare;
    n.rhs = std::move(*rhs);
    if (n.lhs.kind != Operand::Kind::Field && n.rhs.kind != Operand::Kind::Field)
      return fail(n.position, "a comparison needs a field on one side");
    if (n.op == RelOp::Like && n.lhs.kind != Operand::Kind::Field)
      return fail(n.position, "LIKE needs a field on its left");
    return n;
  }

  Result<Operand, ParseError> operand() {
    Operand o;
    o.position = tok_.position;
    switch (tok_.kind) {
      case Token::Kind::Literal:
        o.kind = Operand::Kind::Literal;
        o.literal = std::move(tok_.literal);
        break;
      case Token::Kind::Parameter:
        o.kind = Operand::Kind::Parameter;
        o.parameter = tok_.index;
        break;
      case Token::Kind::Name:
        return field();
      default:
        return fail(tok_.position,
                    "expected a field, a value or a %n parameter, found " + describe(tok_));
    }
    if (auto st = advance(); !st) return unexpected(st.error());
    return o;
  }

  Result<Operand, ParseError> field() {
    FieldPath path;
    path.position = tok_.position;
    while (true) {
      if (tok_.kind != Token::Kind::Name)
        return fail(tok_.position, "expected a field name, found " + describe(tok_));
      FieldStep step;
      step.name = std::string(tok_.text);
      path.text += step.name;
      if (auto st = advance(); !st) return unexpected(st.error());
      if (tok_.kind == Token::Kind::LBracket) {
        if (auto st = advance(); !st) return unexpected(st.error());
        if (tok_.kind != Token::Kind::Literal || tok_.literal.kind != Literal::Kind::Integer ||
            tok_.literal.integer < 0 || tok_.literal.integer > UINT32_MAX)
          return fail(tok_.position, "an array index is an integer 0.." +
                                         std::to_string(UINT32_MAX) + ", found " + describe(tok_));
        step.indexed = true;
        step.index = static_cast<uint32_t>(tok_.literal.integer);
        path.text += "[" + std::to_string(step.index) + "]";
        if (auto st = advance(); !st) return unexpected(st.error());
        if (tok_.kind != Token::Kind::RBracket)
          return fail(tok_.position, "expected ']', found " + describe(tok_));
        if (auto st = advance(); !st) return unexpected(st.error());
      }
      path.steps.push_back(std::move(step));
      if (tok_.kind != Token::Kind::Dot) break;
      path.text += ".";
      if (auto st = advance(); !st) return unexpected(st.error());
    }
    Operand o;
    o.kind = Operand::Kind::Field;
    o.position = path.position;
    o.field = static_cast<uint32_t>(out_.fields.size());
    out_.fields.push_back(std::move(path));
    return o;
  }

  Lexer lexer_;
  Token tok_;
  Expression out_;
};

}  // namespace

Result<Expression, ParseError> parse_expression(std::string_view text) {
  if (text.size() > MAX_EXPRESSION_BYTES)
    return unexpected(
        ParseError{0, "longer than " + std::to_string(MAX_EXPRESSION_BYTES) + " bytes"});
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\0') return unexpected(ParseError{i, "NUL character"});
  return Parser(text).run();
}

Result<Literal, ParseError> parse_literal(std::string_view text) {
  Lexer lexer(text);
  auto t = lexer.next();
  if (!t) return unexpected(t.error());
  if (t->kind != Token::Kind::Literal)
    return unexpected(ParseError{t->position,
                                 "expected one value (a number, a 'quoted string', "
                                 "TRUE or FALSE), found " +
                                     describe(*t)});
  auto end = lexer.next();
  if (!end) return unexpected(end.error());
  if (end->kind != Token::Kind::End)
    return unexpected(
        ParseError{end->position, "expected one value only, found more: " + describe(*end)});
  return std::move(t->literal);
}

}  // namespace baton::ros2::rmw::content_filter
