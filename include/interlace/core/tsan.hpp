// ThreadSanitizer cannot see ordering that travels through a shared-memory segment
// mapped at two addresses (the shm rings), so, when ranks are threads of one process,
// a rendezvous read of the sender's buffer looks like a race. These annotations state
// the real ordering (RTS publish -> read -> FIN) on the buffer's own address.
#pragma once

#if defined(__SANITIZE_THREAD__)
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
#define IL_TSAN_ACQUIRE(p) __tsan_acquire(const_cast<void*>(static_cast<const void*>(p)))
#define IL_TSAN_RELEASE(p) __tsan_release(const_cast<void*>(static_cast<const void*>(p)))
#else
#define IL_TSAN_ACQUIRE(p) ((void)0)
#define IL_TSAN_RELEASE(p) ((void)0)
#endif
