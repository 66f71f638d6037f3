#include "domain.hpp"

#include <unistd.h>

#include <mutex>

#include "baton/shm/naming.hpp"

namespace baton::ros2::rmw {
namespace {

std::mutex domain_mutex;
std::string joined;  // the namespace the process's contexts use; valid while contexts > 0
int contexts = 0;

}  // namespace

std::string domain_namespace(const std::string& base, std::size_t domain_id,
                             rmw_automatic_discovery_range_t range, int pid) {
  std::string ns = base;
  // Domain 0 keeps the plain namespace, so native baton code meets ROS's default domain as is.
  if (domain_id != 0 || range == RMW_AUTOMATIC_DISCOVERY_RANGE_OFF)
    ns += "-d" + std::to_string(domain_id);
  if (range == RMW_AUTOMATIC_DISCOVERY_RANGE_OFF) ns += "-p" + std::to_string(pid);
  return ns;
}

Result<std::string, std::string> join_domain(std::size_t domain_id,
                                             rmw_automatic_discovery_range_t range) {
  const std::string ns = domain_namespace(shm::environment_namespace(), domain_id, range,
                                          static_cast<int>(::getpid()));
  std::lock_guard<std::mutex> lock(domain_mutex);
  if (contexts > 0 && ns != joined) {
    return unexpected("this process already uses baton namespace '" + joined +
                      "' (another ROS domain or discovery range); a context for domain " +
                      std::to_string(domain_id) + " would need '" + ns +
                      "' — baton namespaces are process-wide: one domain per process");
  }
  if (contexts == 0) {
    shm::set_process_namespace(ns);
    joined = ns;
  }
  ++contexts;
  return ns;
}

void leave_domain() {
  std::lock_guard<std::mutex> lock(domain_mutex);
  if (contexts > 0 && --contexts == 0) {
    shm::set_process_namespace("");
    joined.clear();
  }
}

}  // namespace baton::ros2::rmw
