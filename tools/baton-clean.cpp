// baton-clean: removes this user's baton segments whose owners are gone (never a live one's).
//   baton-clean [--dry-run] [--all-namespaces] [--remove-corrupt]
#include <cstdio>
#include <cstring>

#include "baton/graph/cleanup.hpp"

int main(int argc, char** argv) {
  bool dry = false, all = false, corrupt = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--dry-run"))
      dry = true;
    else if (!std::strcmp(argv[i], "--all-namespaces"))
      all = true;
    else if (!std::strcmp(argv[i], "--remove-corrupt"))
      corrupt = true;
    else {
      std::fprintf(stderr,
                   "usage: baton-clean [--dry-run] [--all-namespaces] [--remove-corrupt]\n"
                   "Removes segments of dead participants in /dev/shm (this user only).\n");
      return std::strcmp(argv[i], "--help") == 0 ? 0 : 2;
    }
  }
  auto r = baton::graph::clean_segments(dry, corrupt, all);
  for (auto& s : r.removed)
    std::printf("%s %s (%s)\n", dry ? "would remove" : "removed", s.name.c_str(), s.kind.c_str());
  for (auto& s : r.corrupt)
    std::printf("corrupt, kept: %s: %s\n", s.name.c_str(), s.problem.c_str());
  std::printf("%zu removed, %zu in use, %zu corrupt\n", r.removed.size(), r.kept.size(),
              r.corrupt.size());
  return 0;
}
