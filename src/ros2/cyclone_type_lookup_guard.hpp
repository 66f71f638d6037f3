// CycloneDDS 0.10 (Debian 12's libddsc 0.10.2) crashes in its XTypes type library when it adds a
// type object from a TypeLookup reply, and it adds those of replies it never asked for: a Fast DDS
// participant answering another one's request writes the reply to every matched TypeLookup reply
// reader, Cyclone's included, and Cyclone stores the type objects of every type a discovered
// endpoint named. With two rclpy processes (rmw_fastrtps_cpp) on the domain, a process on the
// DDS wire died with SIGSEGV in `ddsi_tl_add_types` -> `ddsi_xt_type_init_impl` ("with invalid
// type object" in its log) in about 1 of 15 runs under ASan (CI: WireNative's exactly-once test
// beside another test's rclpy peers).
//
// The wire never needs a type object: its sertypes carry no type information (dds_wire.cpp), so
// Cyclone matches by type name and never requests one. cyclone_type_lookup_guard.cpp therefore
// defines `ddsi_tl_handle_reply` itself. libddsc calls that exported function through its PLT,
// and the dynamic linker binds the call to the first definition in lookup order: this one, in
// the executable or the baton library loaded before libddsc. Every TypeLookup reply is dropped
// and counted; requests are still answered by Cyclone (with the types it knows, none of ours).
#pragma once

#include <cstdint>

namespace baton::ros2 {

// TypeLookup replies this process received and dropped (all Cyclone domains of the process).
uint64_t type_lookup_replies_dropped();

}  // namespace baton::ros2
