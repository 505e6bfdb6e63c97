/*
 * orprof_stubs.h - the C ABI (version 1) for orprof device backends.
 *
 * A backend built as a shared library exports one symbol, ORProf_GetStubs, returning a table of
 * hooks with static storage duration. orprof loads the library with dlopen(RTLD_NOW|RTLD_LOCAL),
 * refuses a table whose abiVersion is not ORPROF_STUBS_ABI_VERSION or whose unpaddedStructSize is
 * smaller than ORPROF_STUBS_UNPADDED_SIZE_V1, and refuses NULL required hooks (mark,
 * rangePush and rangePop may be NULL, as a group, when the backend has no annotation tool).
 *
 * Every hook returns 0 on success and non-zero on failure unless noted; after a failure,
 * lastError() on the same OS thread describes it. orprof reports it as "DEVICE: HOOK: message",
 * so the message need not repeat the device or hook name ("event pool exhausted", not
 * "record: event pool exhausted"); a leading "DEVICE: " or "HOOK: " is dropped if present.
 * Hooks are called from many threads at once.
 * The "current device" is the backend's own per-thread state.
 *
 * Fields are only ever appended. A backend compiled against an older header reports a smaller
 * unpaddedStructSize and orprof reads no field past it: the optional fields after lastError
 * (queueWork) count as NULL for such a backend. The smallest size orprof accepts is
 * ORPROF_STUBS_UNPADDED_SIZE_V1 (the table up to lastError).
 *
 * Check a backend with:  orprof conformance --lib ./libmybackend.so   (-v prints each check's rule)
 */
#ifndef ORPROF_STUBS_H
#define ORPROF_STUBS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ORPROF_STUBS_ABI_VERSION 1

typedef struct ORProf_Event ORProf_Event;                 /* opaque, owned by the backend */
typedef void (*ORProf_DeviceFn)(int device, void* userData);

typedef struct ORProf_Stubs {
  size_t unpaddedStructSize;  /* ORPROF_STUBS_UNPADDED_SIZE as compiled by the backend */
  uint32_t abiVersion;        /* ORPROF_STUBS_ABI_VERSION */
  const char* deviceName;     /* e.g. "openreg"; static storage */
  int (*enabled)(void);       /* returns 1 when usable, 0 otherwise */
  int (*deviceCount)(int* count);
  int (*record)(int* device, ORProf_Event** event, int64_t* cpuNs);
      /* every out-pointer may be NULL; *device = current device; *event = a new event enqueued on the
         current stream; *cpuNs = CLOCK_REALTIME nanoseconds taken just before enqueueing */
  int (*elapsed)(const ORProf_Event* start, const ORProf_Event* end, float* us);
      /* waits for both events; microseconds from start to end. Called on any thread, not only the
         recording one. A NULL event: 0 or an error, never a crash; events of two devices: an
         error */
  void (*destroyEvent)(ORProf_Event* event);
  int (*mark)(const char* name);
  int (*rangePush)(const char* name);
  int (*rangePop)(void);      /* same OS thread as the push; one stack per thread; a pop with nothing
                                 pushed is an error (or all three are no-ops that succeed when the
                                 device has no annotation tool, as PyTorch's OpenReg) */
  int (*onEachDevice)(ORProf_DeviceFn fn, void* userData);
      /* fn(i) for i in 0..count-1 with device i current; the previous device is current again after */
  int (*synchronize)(void);   /* all queued work on every device has completed when it returns */
  const char* (*lastError)(void); /* message for this thread's last failure, or NULL */

  /* Optional, appended in ABI version 1 (present when unpaddedStructSize covers it; may be NULL). */
  int (*queueWork)(int64_t ns);
      /* enqueue work on the current stream of the current device that keeps the stream busy for at
         least ns nanoseconds of wall time once the stream reaches it, and return without waiting
         for it; events recorded after it complete after it, and synchronize waits for it. The
         conformance kit uses it to check that elapsed spans queued work and that synchronize
         waits for every device. */
} ORProf_Stubs;

/* The value a backend puts in unpaddedStructSize when compiled against this header. */
#define ORPROF_STUBS_UNPADDED_SIZE \
  (offsetof(ORProf_Stubs, queueWork) + sizeof(((ORProf_Stubs*)0)->queueWork))

/* The smallest unpaddedStructSize orprof accepts: the table of the first ABI version 1 header,
   up to lastError. */
#define ORPROF_STUBS_UNPADDED_SIZE_V1 \
  (offsetof(ORProf_Stubs, lastError) + sizeof(((ORProf_Stubs*)0)->lastError))

const ORProf_Stubs* ORProf_GetStubs(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ORPROF_STUBS_H */
