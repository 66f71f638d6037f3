// Loanability of a message type: see loan_layout.hpp.
#include "loan_layout.hpp"

#include <memory>

#include "introspection_shape.hpp"

namespace baton::ros2::rmw {
namespace {

constexpr uint32_t MAX_NESTING = 32;  // as the CDR walker's depth limit; deeper = not loanable

// Walks `type` laid out at offset `base` in memory, advancing the CDR position `cdr` (relative to
// the end of the encapsulation header) as an encoder would, and compares the two at every
// primitive. Returns false with `out.why_not` set at the first difference or indirection. The
// same walk serves C structs and C++ classes (std::array<T, N> lies as T[N]).
template <typename L>
bool walk(const typename L::Members& type, uint64_t base, uint64_t& cdr, LoanLayout& out,
          const std::string& path, uint32_t depth) {
  if (depth > MAX_NESTING) {
    out.why_not = path + ": nested deeper than " + std::to_string(MAX_NESTING);
    return false;
  }
  for (uint32_t i = 0; i < type.member_count_; ++i) {
    const auto& m = type.members_[i];
    const std::string field = path + "." + (m.name_ != nullptr ? m.name_ : "?");
    const FieldShape<L> s = shape_of<L>(m);
    if (s.array == ArrayKind::Bounded || s.array == ArrayKind::Unbounded) {
      out.why_not = field + " is a sequence (its elements live behind a pointer)";
      return false;
    }
    const uint64_t count = s.array == ArrayKind::Fixed ? s.array_size : 1;
    const uint64_t at = base + m.offset_;
    switch (s.kind) {
      case FieldKind::Primitive:
      case FieldKind::Bool: {
        cdr = (cdr + s.size - 1) / s.size * s.size;  // CDR aligns a primitive to its size
        if (at != cdr) {
          out.why_not = field + " is at " + L::NAME + " offset " + std::to_string(at) +
                        " but CDR offset " + std::to_string(cdr) + " (" + L::NAME +
                        " padding differs from CDR alignment)";
          return false;
        }
        if (s.kind == FieldKind::Bool)
          for (uint64_t k = 0; k < count; ++k)
            out.bool_offsets.push_back(static_cast<uint32_t>(at + k));
        cdr += count * s.size;  // a C array of primitives is as packed as its CDR
        if (s.size > out.align) out.align = s.size;
        break;
      }
      case FieldKind::Nested:
        for (uint64_t k = 0; k < count; ++k)
          if (!walk<L>(*s.nested, at + k * s.nested->size_of_, cdr, out, field, depth + 1))
            return false;
        break;
      case FieldKind::String:
      case FieldKind::WString:
        out.why_not = field + " is a string (its characters live behind a pointer)";
        return false;
      case FieldKind::Unsupported:
        out.why_not = field + " has a type without a CDR layout rule (type id " +
                      std::to_string(m.type_id_) + ")";
        return false;
    }
  }
  return true;
}

// Whether `type` has a sequence of non-bool primitives, at any depth (introspection_decode_view
// can point those of a C struct into the chunk).
template <typename L>
bool has_primitive_sequence(const typename L::Members& type, uint32_t depth) {
  if (depth > MAX_NESTING) return false;
  for (uint32_t i = 0; i < type.member_count_; ++i) {
    const FieldShape<L> s = shape_of<L>(type.members_[i]);
    const bool sequence = s.array == ArrayKind::Bounded || s.array == ArrayKind::Unbounded;
    if (sequence && s.kind == FieldKind::Primitive) return true;
    if (s.kind == FieldKind::Nested && has_primitive_sequence<L>(*s.nested, depth + 1)) return true;
  }
  return false;
}

template <typename L>
LoanLayout compute(const typename L::Members& type, const std::string& name) {
  LoanLayout out;
  uint64_t cdr = 0;
  out.c_size = type.size_of_;
  if (!walk<L>(type, 0, cdr, out, name, 0)) {
    out.bool_offsets.clear();
    out.aligned_sample = has_primitive_sequence<L>(type, 0);
    // Only a C struct's sequences can point into the chunk; a std::vector owns its elements.
    out.viewable = L::CAN_BORROW && out.aligned_sample;
    return out;
  }
  if (cdr > out.c_size) {  // offsets agree, so only a corrupt description gets here
    out.why_not = name + ": CDR size " + std::to_string(cdr) + " exceeds the " + L::NAME +
                  " size " + std::to_string(out.c_size);
    return out;
  }
  out.cdr_size = cdr;
  out.loanable = true;
  out.aligned_sample = true;
  return out;
}

}  // namespace

std::shared_ptr<const LoanLayout> loan_layout_of(const IntrospectionType& type) {
  // Computed per resolved type (a short walk of the members), owned by the endpoints' MessageType:
  // no process-wide cache keyed by a members pointer, which a type-support library unloaded and
  // another loaded at the same address would alias (and which LeakSanitizer reports once the rmw
  // library is dlclose'd).
  LoanLayout out;
  if (const auto* t = type.c()) out = compute<CLayout>(*t, type.name());
  if (const auto* t = type.cpp()) out = compute<CppLayout>(*t, type.name());
  return std::make_shared<const LoanLayout>(std::move(out));
}

bool bools_valid(const LoanLayout& layout, const uint8_t* msg) {
  for (uint32_t at : layout.bool_offsets)
    if (msg[at] > 1) return false;
  return true;
}

}  // namespace baton::ros2::rmw
