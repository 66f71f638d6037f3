// Private to baton_ros2 and rmw_baton_cpp: the DDS wire behind the bridged-endpoint core's
// ForeignWriter / ForeignReader (src/wire/foreign_wire.hpp). Built with CycloneDDS only.
#pragma once

#include <memory>

#include "../wire/foreign_wire.hpp"

namespace baton::ros2 {
class DdsRawReader;
class DdsRawWriter;
}  // namespace baton::ros2

namespace baton::ros2::detail {

std::unique_ptr<wire::ForeignWriter> dds_foreign_writer(DdsRawWriter writer);
std::unique_ptr<wire::ForeignReader> dds_foreign_reader(DdsRawReader reader);

}  // namespace baton::ros2::detail
