// Contract: the fabric registry. A fabric backend is one folder src/fabric/<name>/
// with a register.cpp that defines `void register_fabric_<name>(Registry&)`; the build
// finds the folders and calls every such function once, before the first lookup.
// Nothing else in the tree spells a backend's name: the engine picks fabrics here,
// `interlace info` lists them and their options here, and INTERLACE_FABRIC is checked
// against this list.
//  - scope host: usable only when every rank of the job shares a host (shm);
//    scope network: any placement (tcp). INTERLACE_FABRIC=auto picks the host fabric
//    with the highest priority when the ranks share a host, else the network one.
//  - options: the INTERLACE_* variables the backend reads (name, default, meaning);
//    listed by `interlace info` with their values and in docs/configuration.md.
#pragma once
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "interlace/fabric/fabric.hpp"

namespace interlace::fabric {

struct FabricOption {
  std::string variable;       // "INTERLACE_SHM_RING_BYTES"
  std::string default_value;  // as a user would write it
  std::string meaning;
};

enum class FabricScope { host, network };

struct FabricInfo {
  std::string name;
  std::string summary;
  FabricScope scope = FabricScope::network;
  int priority = 0;  // higher wins for auto within a scope
  std::vector<FabricOption> options;
  std::function<std::unique_ptr<Fabric>(const FabricInit&)> make;
};

// Thread-safe: ranks that are threads look fabrics up while a test registers one.
// Entries never move or go away, so the pointers handed out stay valid.
class Registry {
 public:
  // Throws invalid_argument for an empty or duplicate name or a missing factory.
  void add(FabricInfo info);
  const FabricInfo* find(const std::string& name) const noexcept;
  std::vector<const FabricInfo*> all() const;  // sorted by name
  // The best fabric of a scope for auto; null if none is registered.
  const FabricInfo* best(FabricScope scope) const noexcept;
  // "shm, tcp": for error messages.
  std::string names() const;

 private:
  mutable std::mutex m_;
  std::vector<std::unique_ptr<FabricInfo>> fabrics_;
};

// The process-wide registry with every built-in backend registered (thread-safe
// first use). Fabrics registered later (tests, plug-ins) join it.
Registry& registry();

// Creates the named fabric; an unknown name is invalid_argument listing the known ones.
std::unique_ptr<Fabric> make_fabric(const std::string& name, const FabricInit& init);

}  // namespace interlace::fabric
