// Which ROS message types rmw_baton_cpp can loan, and where a loaned message sits in its chunk.
//
// A type is loanable when its C struct (rosidl_typesupport_introspection_c layout) or C++ class
// (rosidl_typesupport_introspection_cpp: std::array<T, N> lies as T[N]) *is* its XCDR1
// little-endian encoding: every primitive member's offset in memory equals its CDR offset measured
// from the end of the 4-byte encapsulation header, nested structs and fixed arrays included, and
// there is nothing behind a pointer (no string, wstring, sequence or bounded sequence). Then one
// chunk serves every reader without a copy:
//
//   chunk + 0   4 bytes unused (zero)
//   chunk + 4   encapsulation 00 01 00 00   <- the CDR sample: ChunkControl::payload_offset = 4
//   chunk + 8   the C struct, 8-aligned     <- what a loan hands out
//
// A variable-size type with primitive sequences is "viewable" instead (subscriptions of C type
// supports only): its loan is a private C struct whose primitive sequences' `data` point into the
// chunk.
//
// Native baton subscribers, `baton topic echo` and rmw_take read the sample as ordinary CDR
// (payload_size = 4 + cdr_size); a loaning subscriber reads the struct in place. rmw_baton_cpp
// publishers of a loanable type place every sample this way, loaned or not.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "baton/ros2/cdr.hpp"
#include "introspection_type.hpp"

namespace baton::ros2::rmw {

// The CDR sample's offset in its chunk (ChunkControl::payload_offset) and the C struct's.
inline constexpr uint64_t LOAN_SAMPLE_OFFSET = CDR_SAMPLE_OFFSET;  // as Publisher
inline constexpr uint64_t LOAN_STRUCT_OFFSET = LOAN_SAMPLE_OFFSET + 4;

struct LoanLayout {
  bool loanable = false;
  // Not loanable, but a subscription can still loan it with its large parts in place: the struct
  // is decoded into private memory except for its sequences of non-bool primitives (`uint8[]
  // data` of an Image / PointCloud2, …), which point into the chunk (introspection_decode_view).
  // True when the type has such a sequence anywhere (nested included) and is described by a C
  // type support (a C++ std::vector owns its elements). Publishers do not loan it.
  bool viewable = false;
  // Publishers place every sample at LOAN_SAMPLE_OFFSET (so the CDR body is 8-aligned): loanable
  // types, and types with a sequence of non-bool primitives in either language (a C subscriber of
  // the topic may view them in place, whatever language the publisher is in).
  bool aligned_sample = false;
  std::string why_not;    // "<type>.<field>: ..." when not loanable
  uint64_t c_size = 0;    // sizeof the C struct / C++ class (tail padding included)
  uint64_t cdr_size = 0;  // bytes of its CDR encoding after the header (<= c_size)
  uint32_t align = 1;     // the struct's alignment: its largest primitive
  // Offsets of bool members: CDR (and C) allow only 0 and 1 there, and shared memory is not
  // trusted, so a loaned struct is checked before it is handed out.
  std::vector<uint32_t> bool_offsets;
};

// The layout of `type` (computed on each call; MessageType keeps it for its endpoints).
std::shared_ptr<const LoanLayout> loan_layout_of(const IntrospectionType& type);

// True if every bool of the struct at `msg` is 0 or 1.
bool bools_valid(const LoanLayout& layout, const uint8_t* msg);

}  // namespace baton::ros2::rmw
