// Contexts (each one a pgas::Domain: its own set of outstanding operations) and the
// ordering routines fence and quiet.
#include "compat/shmem/shmem_entry.hpp"


namespace {
constexpr long kKnownOptions = SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE;
}

extern "C" {

int shmem_ctx_create(long options, shmem_ctx_t* ctx) {
  return call("shmem_ctx_create", [&] {
    pgas::Pgas& p = shmem::pgas("shmem_ctx_create");
    check_ptr(ctx, "ctx");
    // An unknown option is a failed creation, which the specification says is not an
    // error: the program may retry with other options.
    if (options & ~kKnownOptions) {
      debug("shmem_ctx_create: unknown options " + std::to_string(options & ~kKnownOptions));
      *ctx = SHMEM_CTX_INVALID;
      return 1;
    }
    *ctx = shmem::new_ctx(p, options, nullptr, {});
    return 0;
  });
}

void shmem_ctx_destroy(shmem_ctx_t ctx) {
  call("shmem_ctx_destroy", [&] { shmem::destroy_ctx(shmem::pgas("shmem_ctx_destroy"), ctx); });
}

void shmem_ctx_fence(shmem_ctx_t ctx) {
  call("shmem_ctx_fence", [&] {
    pgas::Pgas& p = shmem::pgas("shmem_ctx_fence");
    p.fence(domain_of(p, ctx));
  });
}

void shmem_ctx_quiet(shmem_ctx_t ctx) {
  call("shmem_ctx_quiet", [&] {
    pgas::Pgas& p = shmem::pgas("shmem_ctx_quiet");
    p.quiet(domain_of(p, ctx));
  });
}

void shmem_fence(void) {
  call("shmem_fence", [] {
    pgas::Pgas& p = shmem::pgas("shmem_fence");
    p.fence(p.default_domain());
  });
}

void shmem_quiet(void) {
  call("shmem_quiet", [] {
    pgas::Pgas& p = shmem::pgas("shmem_quiet");
    p.quiet(p.default_domain());
  });
}

}  // extern "C"
