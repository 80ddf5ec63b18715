#include "interlace/groups/comm_state.hpp"

namespace interlace::groups {

RuntimeState::~RuntimeState() {
  if (ctx && !finalized) {
    try { ctx->finalize(); } catch (...) {}
  }
  ctx.reset();  // destroys the models' state first (see Context), then the fabric
}

std::shared_ptr<CommState> CommState::make(std::shared_ptr<RuntimeState> rt, uint64_t id,
                                           std::vector<int> members) {
  auto c = std::make_shared<CommState>();
  const int world = rt->ctx->size();
  c->rank_of_world.assign(world, -1);
  for (size_t i = 0; i < members.size(); ++i) c->rank_of_world[members[i]] = static_cast<int>(i);
  c->rank = c->rank_of_world[rt->ctx->rank()];
  c->rt = std::move(rt);
  c->id = id;
  c->world_of = std::move(members);
  return c;
}

uint64_t CommState::new_child_id() const {
  return (static_cast<uint64_t>(rt->ctx->rank()) + 1) << 32 | rt->ctx->next_local_id();
}

CommState::~CommState() {
  if ((id >> 32) == 0 || !rt || !rt->ctx) return;  // created ids are (root + 1) << 32 | n
  rt->ctx->notify_comm_freed(id);
}

}  // namespace interlace::groups
