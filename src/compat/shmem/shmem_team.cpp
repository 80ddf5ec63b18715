// Team management routines of shmem.h (OpenSHMEM 1.5 section 9.4).
#include <algorithm>

#include "compat/shmem/shmem_team.hpp"
#include "interlace/groups/comm_state.hpp"

using namespace interlace;
using namespace interlace::shmem::teams;

namespace {

// The specification answers a bad triplet or xrange with a nonzero return and
// SHMEM_TEAM_INVALID, not an error; SHMEM_DEBUG says why.
int refuse(const char* routine, const std::string& why) {
  shmem::debug(std::string(routine) + ": " + why + "; returning nonzero");
  return 1;
}

Team configured(Communicator c, const shmem_team_config_t* config, long mask, const char* routine) {
  if (mask & ~SHMEM_TEAM_NUM_CONTEXTS)
    throw Error(Errc::invalid_argument, "config_mask " + std::to_string(mask) +
                                            " has bits other than SHMEM_TEAM_NUM_CONTEXTS");
  Team t;
  t.comm = std::move(c);
  t.config_mask = mask;
  if (mask & SHMEM_TEAM_NUM_CONTEXTS) {
    if (!config) throw Error(Errc::invalid_argument, "config is NULL but config_mask selects num_contexts");
    if (config->num_contexts < 0)
      throw Error(Errc::invalid_argument, "num_contexts " + std::to_string(config->num_contexts) +
                                              " is negative");
    t.config.num_contexts = config->num_contexts;
  }
  return t;
}

template <class T>
T* need(T* p, const char* name) {
  if (!p) throw Error(Errc::invalid_argument, std::string(name) + " is NULL");
  return p;
}

}  // namespace

extern "C" {

int shmem_team_my_pe(shmem_team_t t) {
  if (t == SHMEM_TEAM_INVALID) return -1;
  return shmem::call("shmem_team_my_pe", [&] { return team(t, "shmem_team_my_pe").comm.rank(); });
}

int shmem_team_n_pes(shmem_team_t t) {
  if (t == SHMEM_TEAM_INVALID) return -1;
  return shmem::call("shmem_team_n_pes", [&] { return team(t, "shmem_team_n_pes").comm.size(); });
}

int shmem_team_get_config(shmem_team_t t, long mask, shmem_team_config_t* config) {
  if (t == SHMEM_TEAM_INVALID) return -1;
  return shmem::call("shmem_team_get_config", [&] {
    const Team& tm = team(t, "shmem_team_get_config");
    if (mask & ~SHMEM_TEAM_NUM_CONTEXTS)
      throw Error(Errc::invalid_argument, "config_mask " + std::to_string(mask) +
                                              " has bits other than SHMEM_TEAM_NUM_CONTEXTS");
    if (mask & SHMEM_TEAM_NUM_CONTEXTS) need(config, "config")->num_contexts = tm.config.num_contexts;
    return 0;
  });
}

int shmem_team_translate_pe(shmem_team_t src, int src_pe, shmem_team_t dest) {
  if (src == SHMEM_TEAM_INVALID || dest == SHMEM_TEAM_INVALID) return -1;
  return shmem::call("shmem_team_translate_pe", [&] {
    const Team& s = team(src, "shmem_team_translate_pe");
    const Team& d = team(dest, "shmem_team_translate_pe");
    if (src_pe < 0 || src_pe >= s.comm.size()) return -1;
    return d.comm.group_state()->rank_of_world[s.comm.world_rank_of(src_pe)];
  });
}

void* shmem_team_ptr(shmem_team_t t, const void* dest, int pe) {
  if (t == SHMEM_TEAM_INVALID) return nullptr;
  return shmem::call("shmem_team_ptr", [&]() -> void* {
    const Team& tm = team(t, "shmem_team_ptr");
    if (pe < 0 || pe >= tm.comm.size()) return nullptr;
    return shmem::pgas("shmem_team_ptr").ptr(dest, tm.comm.world_rank_of(pe));
  });
}

int shmem_team_split_strided(shmem_team_t parent, int start, int stride, int size,
                             const shmem_team_config_t* config, long mask, shmem_team_t* new_team) {
  static const char* r = "shmem_team_split_strided";
  return shmem::call(r, [&] {
    *need(new_team, "new_team") = SHMEM_TEAM_INVALID;
    if (parent == SHMEM_TEAM_INVALID) return refuse(r, "parent_team is SHMEM_TEAM_INVALID");
    const Team& p = team(parent, r);
    const int n = p.comm.size();
    const int64_t last = start + static_cast<int64_t>(stride) * (static_cast<int64_t>(size) - 1);
    const std::string triplet = "(start " + std::to_string(start) + ", stride " + std::to_string(stride) +
                                ", size " + std::to_string(size) + ")";
    if (size < 1 || start < 0 || start >= n || last < 0 || last >= n || (stride == 0 && size != 1))
      return refuse(r, "the triplet " + triplet + " is not a set of PEs of the parent team of " +
                           std::to_string(n) + " PEs");
    Team cfg = configured(Communicator(), config, mask, r);  // checks before the collective part
    const int me = p.comm.rank();
    int index = -1;
    if (stride == 0) {
      index = me == start ? 0 : -1;
    } else if ((me - start) % stride == 0) {
      const int i = (me - start) / stride;
      if (i >= 0 && i < size) index = i;
    }
    Communicator c = p.comm.split(index >= 0 ? 0 : UNDEFINED, std::max(index, 0));
    if (index >= 0) {
      cfg.comm = std::move(c);
      *new_team = add_team(std::move(cfg));
    }
    return 0;
  });
}

int shmem_team_split_2d(shmem_team_t parent, int xrange, const shmem_team_config_t* xconfig,
                        long xmask, shmem_team_t* xteam, const shmem_team_config_t* yconfig,
                        long ymask, shmem_team_t* yteam) {
  static const char* r = "shmem_team_split_2d";
  return shmem::call(r, [&] {
    *need(xteam, "xaxis_team") = SHMEM_TEAM_INVALID;
    *need(yteam, "yaxis_team") = SHMEM_TEAM_INVALID;
    if (parent == SHMEM_TEAM_INVALID) return refuse(r, "parent_team is SHMEM_TEAM_INVALID");
    if (xrange <= 0) return refuse(r, "xrange " + std::to_string(xrange) + " is not positive");
    const Team& p = team(parent, r);
    Team x = configured(Communicator(), xconfig, xmask, r);
    Team y = configured(Communicator(), yconfig, ymask, r);
    const int me = p.comm.rank();
    const int xr = std::min(xrange, p.comm.size());  // a wider x axis is one row
    x.comm = p.comm.split(me / xr, me % xr);
    y.comm = p.comm.split(me % xr, me / xr);
    *xteam = add_team(std::move(x));
    *yteam = add_team(std::move(y));
    return 0;
  });
}

void shmem_team_destroy(shmem_team_t t) {
  if (t == SHMEM_TEAM_INVALID) return;
  shmem::call("shmem_team_destroy", [&] {
    if (t == SHMEM_TEAM_WORLD || t == SHMEM_TEAM_SHARED)
      throw Error(Errc::invalid_argument, std::string("the predefined team ") +
                                              (t == SHMEM_TEAM_WORLD ? "SHMEM_TEAM_WORLD" : "SHMEM_TEAM_SHARED") +
                                              " cannot be destroyed");
    team(t, "shmem_team_destroy");
    Team gone = remove_team(t);
    gone.comm.free();
  });
}

int shmem_team_create_ctx(shmem_team_t t, long options, shmem_ctx_t* ctx) {
  static const char* r = "shmem_team_create_ctx";
  return shmem::call(r, [&] {
    pgas::Pgas& p = shmem::pgas(r);
    *need(ctx, "ctx") = SHMEM_CTX_INVALID;
    if (t == SHMEM_TEAM_INVALID) return refuse(r, "team is SHMEM_TEAM_INVALID");
    const Team& tm = team(t, r);
    // Unknown options are a failed creation, as for shmem_ctx_create (the program may
    // retry with other options).
    if (options & ~(SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE))
      return refuse(r, "unknown options " + std::to_string(options));
    std::vector<int> world_pes;
    if (t != SHMEM_TEAM_WORLD) world_pes = tm.comm.group_state()->world_of;
    *ctx = shmem::new_ctx(p, options, t == SHMEM_TEAM_WORLD ? nullptr : t, std::move(world_pes));
    return 0;
  });
}

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t* t) {
  static const char* r = "shmem_ctx_get_team";
  return shmem::call(r, [&] {
    *need(t, "team") = SHMEM_TEAM_INVALID;
    if (ctx == SHMEM_CTX_INVALID) return 1;
    shmem::domain_of(shmem::pgas(r), ctx);  // rejects a destroyed or stray context
    *t = ctx->team ? static_cast<shmem_team_t>(ctx->team) : SHMEM_TEAM_WORLD;
    return 0;
  });
}

}  // extern "C"
