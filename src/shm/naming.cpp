#include "baton/shm/naming.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace baton::shm {
namespace {

// POSIX shm names live in /dev/shm, so NAME_MAX (255) bounds the whole name.
constexpr std::size_t MAX_NAME = 250;

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// The process namespace (already escaped); empty: BATON_NAMESPACE decides.
std::mutex process_namespace_mutex;
std::string process_namespace;

}  // namespace

std::string escape_name(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (unsigned char c : name) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_' || c == '-';
    if (plain) {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[4];
      std::snprintf(buf, sizeof(buf), "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

std::string environment_namespace() {
  const char* ns = std::getenv("BATON_NAMESPACE");
  if (ns == nullptr || *ns == '\0') return "default";
  return escape_name(ns);
}

std::string current_namespace() {
  {
    std::lock_guard<std::mutex> lock(process_namespace_mutex);
    if (!process_namespace.empty()) return process_namespace;
  }
  return environment_namespace();
}

void set_process_namespace(std::string_view ns) {
  std::string escaped = escape_name(ns);
  std::lock_guard<std::mutex> lock(process_namespace_mutex);
  process_namespace = std::move(escaped);
}

std::string segment_prefix() {
  return "/baton." + std::to_string(::getuid()) + "." + current_namespace() + ".";
}

std::string segment_name(std::string_view kind_tag, std::string_view name) {
  std::string full = segment_prefix() + std::string(kind_tag) + "." + escape_name(name);
  if (full.size() > MAX_NAME) {
    char suffix[20];
    std::snprintf(suffix, sizeof(suffix), "~%016llx", static_cast<unsigned long long>(fnv1a(full)));
    full = full.substr(0, MAX_NAME - 17) + suffix;
  }
  return full;
}

}  // namespace baton::shm
