// The team registry: handles to teams, the predefined teams, active-set communicators.
#include <map>
#include <mutex>

#include "compat/shmem/shmem_team.hpp"
#include "interlace/groups/comm_state.hpp"

namespace interlace::shmem::teams {

namespace {

constexpr uint64_t kReservedBit = uint64_t{1} << 63;
constexpr uint64_t kSharedBit = uint64_t{1} << 62;

struct Registry {
  std::mutex m;
  std::map<uintptr_t, Team> teams;             // handle value -> team
  uintptr_t next = 3;                          // 1, 2: WORLD, SHARED
  std::map<uint64_t, Communicator> sets;       // active-set id -> communicator
};

// Never destroyed: a program that exits without shmem_finalize must not run the
// communicators' destructors after the runtime is gone.
Registry& reg() {
  static Registry* r = new Registry;
  return *r;
}

std::string handle_name(shmem_team_t t) {
  return std::to_string(reinterpret_cast<uintptr_t>(t));
}

Team make_world() {
  Team w;
  w.comm = shmem::world();
  return w;
}

Team make_shared() {
  pgas::Pgas& p = shmem::pgas("SHMEM_TEAM_SHARED");
  const Communicator world = shmem::world();
  std::vector<int> members;
  for (int pe = 0; pe < world.size(); ++pe)
    if (pe == world.rank() || p.ptr(p.heap_base(), pe) != nullptr) members.push_back(pe);
  const uint64_t id = kReservedBit | kSharedBit | static_cast<uint64_t>(members.front());
  Team s;
  s.comm = Communicator::from_group_state(
      groups::CommState::make(world.group_state()->rt, id, std::move(members)));
  return s;
}

}  // namespace

Team& team(shmem_team_t t, const char* routine) {
  const uintptr_t h = reinterpret_cast<uintptr_t>(t);
  if (t == SHMEM_TEAM_INVALID)
    throw Error(Errc::invalid_argument, "the team is SHMEM_TEAM_INVALID");
  Registry& r = reg();
  std::lock_guard<std::mutex> lk(r.m);
  auto it = r.teams.find(h);
  if (it != r.teams.end()) return it->second;
  if (t == SHMEM_TEAM_WORLD) return r.teams.emplace(h, make_world()).first->second;
  if (t == SHMEM_TEAM_SHARED) return r.teams.emplace(h, make_shared()).first->second;
  if (h < r.next)
    throw Error(Errc::invalid_argument, "team handle " + handle_name(t) + " was destroyed");
  throw Error(Errc::invalid_argument, "team handle " + handle_name(t) + " is not a team of this PE");
}

shmem_team_t add_team(Team t) {
  Registry& r = reg();
  std::lock_guard<std::mutex> lk(r.m);
  const uintptr_t h = r.next++;
  r.teams.emplace(h, std::move(t));
  return reinterpret_cast<shmem_team_t>(h);
}

Team remove_team(shmem_team_t t) {
  Registry& r = reg();
  std::lock_guard<std::mutex> lk(r.m);
  auto it = r.teams.find(reinterpret_cast<uintptr_t>(t));
  Team out = std::move(it->second);
  r.teams.erase(it);
  return out;
}

uint64_t active_set_id(int start, int log_stride, int size) {
  // 24 bits of start, 6 of log_stride, 32 of size: unique per triplet for any job
  // below 2^24 PEs (checked by active_set), and bit 62 clear (not the shared team).
  return kReservedBit | static_cast<uint64_t>(start) << 38 |
         static_cast<uint64_t>(log_stride) << 32 | static_cast<uint32_t>(size);
}

Communicator active_set(int start, int log_stride, int size, const char* routine) {
  const Communicator world = shmem::world();
  const int n = world.size();
  const std::string triplet = "(PE_start " + std::to_string(start) + ", logPE_stride " +
                              std::to_string(log_stride) + ", PE_size " + std::to_string(size) + ")";
  if (start < 0 || start >= n || start >= (1 << 24))
    throw Error(Errc::invalid_rank, "active set " + triplet + ": PE_start is not a PE of the " +
                                        std::to_string(n) + " PEs");
  if (log_stride < 0 || log_stride > 30)
    throw Error(Errc::invalid_argument, "active set " + triplet + ": logPE_stride must be 0..30");
  if (size < 1)
    throw Error(Errc::invalid_count, "active set " + triplet + ": PE_size must be at least 1");
  const int64_t last = start + (static_cast<int64_t>(size) - 1) * (int64_t{1} << log_stride);
  if (last >= n)
    throw Error(Errc::invalid_rank, "active set " + triplet + ": its last PE " +
                                        std::to_string(last) + " is beyond the " +
                                        std::to_string(n) + " PEs");
  const int me = world.rank();
  if (me < start || (me - start) % (1 << log_stride) != 0 || me > last)
    throw Error(Errc::invalid_rank, "PE " + std::to_string(me) + " is not in the active set " + triplet);
  const uint64_t id = active_set_id(start, log_stride, size);
  Registry& r = reg();
  std::lock_guard<std::mutex> lk(r.m);
  auto it = r.sets.find(id);
  if (it != r.sets.end()) return it->second;
  std::vector<int> members(size);
  for (int i = 0; i < size; ++i) members[i] = start + i * (1 << log_stride);
  Communicator c = Communicator::from_group_state(
      groups::CommState::make(world.group_state()->rt, id, std::move(members)));
  r.sets.emplace(id, c);
  return c;
}

void finalize() noexcept {
  Registry& r = reg();
  std::lock_guard<std::mutex> lk(r.m);
  r.teams.clear();
  r.sets.clear();
}

}  // namespace interlace::shmem::teams
