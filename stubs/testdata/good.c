/*
 * good.c - a small, correct orprof C backend used by the tests, and (with -D macros) the faulty
 * backends the conformance kit must catch.
 *
 * Simulation: NDEV devices, each with one stream served by a worker thread with a FIFO queue.
 * The device has its own clock, as real hardware stamps events: an item starts when it was
 * enqueued or when the item before it ended, whichever is later (CLOCK_MONOTONIC), so the stamps
 * do not depend on when the host schedules the worker thread. An event ends as it starts; work
 * queued by queueWork() ends workNs later, and the worker sleeps until then, so events after it
 * complete (and synchronize returns) only once that time has passed. elapsed() is the difference
 * of two events' stamps. The current device and the range depth are thread-local, as on a
 * real device runtime.
 *
 * Build: gcc -shared -fPIC -O2 -I.. -o libgood.so good.c -lpthread
 *
 * Fault macros (each breaks one conformance check):
 *   BREAK_ENABLED          enabled() returns 0
 *   BREAK_DEVICE_COUNT     deviceCount() fails
 *   BREAK_RECORD_NULL      record() refuses NULL out-pointers
 *   BREAK_CPU_CLOCK        record() reports CLOCK_MONOTONIC instead of CLOCK_REALTIME
 *   BREAK_ELAPSED_SELF     elapsed(e, e) is not 0
 *   BREAK_ELAPSED_ORDER    elapsed() returns |end - start|
 *   BREAK_HOST_GAP         elapsed() returns milliseconds instead of microseconds
 *   BREAK_ELAPSED_NULL     elapsed() takes a NULL start as time 0 and returns a large number
 *   BREAK_ELAPSED_SCALE    elapsed() is 1.5 times too long
 *   GLOBAL_RANGES          one process-wide range stack instead of one per thread
 *   GLOBAL_DEVICE          one process-wide current device instead of one per thread
 *   THREAD_EVENTS          elapsed() fails unless called on the thread that recorded both events
 *   BREAK_ERROR_TEXT       failures leave no lastError message
 *   BREAK_SYNC_CURRENT     synchronize() waits for the current device only
 *   BREAK_SYNC_DEVICE      synchronize() leaves the last device current
 *   EVENT_POOL=n           at most n events live at once (4096: a capped backend)
 *   BREAK_ON_EACH_CURRENT  onEachDevice() does not make device i current
 *   BREAK_ON_EACH_RESTORE  onEachDevice() leaves the last device current
 *   BREAK_SYNCHRONIZE      synchronize() runs one device too far and fails
 *   BREAK_RANGES           rangePush() fails beyond 64 nested ranges
 *   BREAK_MARK             mark() refuses names longer than 255 bytes
 *   BREAK_CONCURRENT       record() is not thread-safe and says so when called concurrently
 *   BREAK_EVENT_LIFETIME   destroyEvent() leaks; record() fails once EVENT_POOL events were made
 *                          (give EVENT_POOL; without it there is no cap)
 *   CRASH_ELAPSED_NULL     elapsed() dereferences NULL events (SIGSEGV)
 *   HANG_SYNCHRONIZE       synchronize() never returns
 *   NO_RANGES              mark, rangePush and rangePop are NULL
 *   NO_QUEUE_WORK          the optional queueWork hook is NULL
 *   OPENREG_SEMANTICS      PyTorch's OpenReg stubs: elapsed() of a NULL event is a quiet 0; mark,
 *                          rangePush and rangePop are no-ops that succeed; synchronize() waits for
 *                          the current device only; no queueWork hook
 * Loader fixtures:
 *   NO_GETSTUBS            the entry point is misnamed
 *   SMALL_STRUCT           unpaddedStructSize stops before synchronize
 *   V1_SIZE                unpaddedStructSize is the first ABI 1 header's (ends at lastError), so
 *                          the queueWork hook set after it must not be read
 *   ABI_VERSION=n          abiVersion is n
 *   NULL_SYNCHRONIZE       the required synchronize hook is NULL
 *   NULL_TABLE             ORProf_GetStubs returns NULL
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "orprof_stubs.h"

#define NDEV 2
#ifndef ABI_VERSION
#define ABI_VERSION ORPROF_STUBS_ABI_VERSION
#endif
#ifdef OPENREG_SEMANTICS
#define NO_QUEUE_WORK
#endif

struct stream;

struct ORProf_Event {
  struct stream* stream;
  int device;
  int done;        /* guarded by stream->mu */
  int64_t queuedNs; /* CLOCK_MONOTONIC when enqueued */
  int64_t doneNs;  /* the device clock's stamp: CLOCK_MONOTONIC when the stream reached the event */
  atomic_int refs; /* one for the caller's handle, one while queued */
  int64_t workNs;  /* > 0: a queueWork item, not an event */
  uint64_t thread; /* the recording thread's serial (THREAD_EVENTS) */
  struct ORProf_Event* next;
};

struct stream {
  pthread_mutex_t mu;
  pthread_cond_t work; /* the queue became non-empty */
  pthread_cond_t done; /* an event completed */
  ORProf_Event* head;
  ORProf_Event* tail;
  int pending; /* queued or being processed */
  int64_t busyUntil; /* when the last item taken ended; worker only */
};

static struct stream streams[NDEV];
static pthread_once_t initOnce = PTHREAD_ONCE_INIT;
static atomic_int liveEvents;

#ifdef GLOBAL_DEVICE
static atomic_int currentDevice;
#else
static __thread int currentDevice;
#endif
#ifdef GLOBAL_RANGES
static atomic_int rangeDepth;
#else
static __thread int rangeDepth;
#endif
static atomic_ulong threadSerials;
static __thread uint64_t threadSerial; /* 0 until first used on a thread */

static uint64_t thisThread(void) {
  if (threadSerial == 0) threadSerial = atomic_fetch_add(&threadSerials, 1) + 1;
  return threadSerial;
}
static __thread char errBuf[256];
static __thread int hasErr;

static int fail(const char* format, ...) {
#ifdef BREAK_ERROR_TEXT
  (void)format;
  return 1;
#endif
  va_list ap;
  va_start(ap, format);
  vsnprintf(errBuf, sizeof errBuf, format, ap);
  va_end(ap);
  hasErr = 1;
  return 1;
}

static int64_t clockNs(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void release(ORProf_Event* ev) {
  if (atomic_fetch_sub(&ev->refs, 1) == 1) {
#ifndef BREAK_EVENT_LIFETIME
    if (ev->workNs == 0) atomic_fetch_sub(&liveEvents, 1);
#endif
    free(ev);
  }
}

static void* worker(void* arg) {
  struct stream* s = arg;
  for (;;) {
    pthread_mutex_lock(&s->mu);
    while (s->head == NULL) pthread_cond_wait(&s->work, &s->mu);
    ORProf_Event* ev = s->head;
    s->head = ev->next;
    if (s->head == NULL) s->tail = NULL;
    pthread_mutex_unlock(&s->mu);

    int64_t now = ev->queuedNs > s->busyUntil ? ev->queuedNs : s->busyUntil;
    if (ev->workNs > 0) {
      now += ev->workNs;
      struct timespec ts = {now / 1000000000, now % 1000000000};
      while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0) {
      }
    }
    s->busyUntil = now;

    pthread_mutex_lock(&s->mu);
    ev->doneNs = now;
    ev->done = 1;
    s->pending--;
    /* Drop the worker's reference before anyone can see the queue drained, so a synchronize
       that returns never still counts this event as live. */
    release(ev);
    pthread_cond_broadcast(&s->done);
    pthread_mutex_unlock(&s->mu);
  }
  return NULL;
}

static void init(void) {
  for (int i = 0; i < NDEV; i++) {
    pthread_mutex_init(&streams[i].mu, NULL);
    pthread_cond_init(&streams[i].work, NULL);
    pthread_cond_init(&streams[i].done, NULL);
    pthread_t t;
    pthread_create(&t, NULL, worker, &streams[i]);
    pthread_detach(t);
  }
}

static int enabled(void) {
#ifdef BREAK_ENABLED
  return 0;
#else
  return 1;
#endif
}

static int deviceCount(int* count) {
#ifdef BREAK_DEVICE_COUNT
  (void)count;
  return fail("driver not initialised");
#else
  if (count == NULL) return fail("NULL count");
  *count = NDEV;
  return 0;
#endif
}

#ifdef BREAK_CONCURRENT
static atomic_int inRecord;
#endif

static int record(int* device, ORProf_Event** event, int64_t* cpuNs) {
  pthread_once(&initOnce, init);
#ifdef BREAK_RECORD_NULL
  if (device == NULL || event == NULL || cpuNs == NULL) return fail("NULL out-pointer");
#endif
#ifdef BREAK_CONCURRENT
  if (atomic_fetch_add(&inRecord, 1) != 0) {
    atomic_fetch_sub(&inRecord, 1);
    return fail("called while another thread was recording (not thread-safe)");
  }
  sched_yield(); /* widen the window, as unlocked bookkeeping would */
#endif
  int d = currentDevice;
  int rc = 0;
  ORProf_Event* ev = NULL;
  if (device != NULL) *device = d;
  if (event != NULL) {
#ifdef EVENT_POOL
    if (atomic_fetch_add(&liveEvents, 1) >= EVENT_POOL) {
      atomic_fetch_sub(&liveEvents, 1);
      rc = fail("event pool exhausted (%d events live)", EVENT_POOL);
      goto out;
    }
#else
    atomic_fetch_add(&liveEvents, 1);
#endif
    ev = calloc(1, sizeof *ev);
    if (ev == NULL) {
      rc = fail("out of memory");
      goto out;
    }
    ev->device = d;
    ev->stream = &streams[d];
    ev->thread = thisThread();
    atomic_init(&ev->refs, 2);
  }
  if (cpuNs != NULL) {
#ifdef BREAK_CPU_CLOCK
    *cpuNs = clockNs(CLOCK_MONOTONIC);
#else
    *cpuNs = clockNs(CLOCK_REALTIME);
#endif
  }
  if (ev != NULL) {
    struct stream* s = ev->stream;
    pthread_mutex_lock(&s->mu);
    ev->queuedNs = clockNs(CLOCK_MONOTONIC);
    if (s->tail) s->tail->next = ev; else s->head = ev;
    s->tail = ev;
    s->pending++;
    pthread_cond_signal(&s->work);
    pthread_mutex_unlock(&s->mu);
    *event = ev;
  }
out:
#ifdef BREAK_CONCURRENT
  atomic_fetch_sub(&inRecord, 1);
#endif
  return rc;
}

static void waitEvent(const ORProf_Event* ev) {
  struct stream* s = ev->stream;
  pthread_mutex_lock(&s->mu);
  while (!ev->done) pthread_cond_wait(&s->done, &s->mu);
  pthread_mutex_unlock(&s->mu);
}

static int elapsed(const ORProf_Event* start, const ORProf_Event* end, float* us) {
#ifdef CRASH_ELAPSED_NULL
  if (start->device != end->device) return fail("events on different devices");
#endif
  if (start == NULL || end == NULL) {
#if defined(BREAK_ELAPSED_NULL)
    if (end != NULL) waitEvent(end);
    if (us) *us = end != NULL ? (float)(end->doneNs / 1000) : 0;
    return 0;
#elif defined(OPENREG_SEMANTICS)
    if (us) *us = 0; /* OpenReg's stubs: a quiet 0 */
    return 0;
#else
    return fail("NULL event");
#endif
  }
  if (us == NULL) return fail("NULL result");
  if (start->device != end->device)
    return fail("events on different devices (%d and %d)", start->device, end->device);
#ifdef THREAD_EVENTS
  if (start->thread != thisThread() || end->thread != thisThread())
    return fail("event recorded on another thread");
#endif
  waitEvent(start);
  waitEvent(end);
  double d = (double)(end->doneNs - start->doneNs) / 1e3;
#ifdef BREAK_ELAPSED_SELF
  if (start == end) d = 1.0;
#endif
#ifdef BREAK_ELAPSED_ORDER
  d = fabs(d);
#endif
#ifdef BREAK_HOST_GAP
  d /= 1e3;
#endif
#ifdef BREAK_ELAPSED_SCALE
  d *= 1.5;
#endif
  *us = (float)d;
  return 0;
}

static void destroyEvent(ORProf_Event* ev) {
  if (ev != NULL) release(ev);
}

#define MAYBE_UNUSED __attribute__((unused))

static MAYBE_UNUSED int mark(const char* name) {
#ifdef OPENREG_SEMANTICS
  (void)name;
  return 0;
#endif
  if (name == NULL) return fail("NULL name");
#ifdef BREAK_MARK
  if (strlen(name) > 255) return fail("name longer than 255 bytes");
#endif
  return 0;
}

static MAYBE_UNUSED int rangePush(const char* name) {
#ifdef OPENREG_SEMANTICS
  (void)name;
  return 0;
#endif
  if (name == NULL) return fail("NULL name");
#ifdef BREAK_RANGES
  if (rangeDepth >= 64) return fail("range stack full (64)");
#endif
  rangeDepth++;
  return 0;
}

static MAYBE_UNUSED int rangePop(void) {
#ifdef OPENREG_SEMANTICS
  return 0;
#endif
  /* Written the old way, repeating the hook name: the loader drops the repeat (tested). */
  if (rangeDepth == 0) return fail("rangePop: nothing pushed on this thread");
  rangeDepth--;
  return 0;
}

static int onEachDevice(ORProf_DeviceFn fn, void* userData) {
  if (fn == NULL) return fail("NULL fn");
  int prev = currentDevice;
  (void)prev;
  for (int i = 0; i < NDEV; i++) {
#ifndef BREAK_ON_EACH_CURRENT
    currentDevice = i;
#endif
    fn(i, userData);
  }
#ifndef BREAK_ON_EACH_RESTORE
  currentDevice = prev;
#endif
  return 0;
}

static MAYBE_UNUSED int synchronize(void) {
  pthread_once(&initOnce, init);
#ifdef HANG_SYNCHRONIZE
  for (;;) pause();
#endif
#ifdef BREAK_SYNCHRONIZE
  for (int i = 0; i <= NDEV; i++) {
    if (i == NDEV) return fail("invalid device %d", i);
#else
  for (int i = 0; i < NDEV; i++) {
#endif
#if defined(OPENREG_SEMANTICS) || defined(BREAK_SYNC_CURRENT)
    if (i != currentDevice) continue; /* orDeviceSynchronize: the current device's streams */
#endif
#ifdef BREAK_SYNC_DEVICE
    currentDevice = i; /* "set each device, then synchronize it", without restoring */
#endif
    struct stream* s = &streams[i];
    pthread_mutex_lock(&s->mu);
    while (s->pending > 0) pthread_cond_wait(&s->done, &s->mu);
    pthread_mutex_unlock(&s->mu);
  }
  return 0;
}

static const char* lastError(void) { return hasErr ? errBuf : NULL; }

static MAYBE_UNUSED int queueWork(int64_t ns) {
  pthread_once(&initOnce, init);
  if (ns < 0) return fail("negative duration");
  ORProf_Event* w = calloc(1, sizeof *w);
  if (w == NULL) return fail("out of memory");
  w->workNs = ns > 0 ? ns : 1;
  w->device = currentDevice;
  w->stream = &streams[w->device];
  atomic_init(&w->refs, 1); /* the queue's only */
  struct stream* s = w->stream;
  pthread_mutex_lock(&s->mu);
  w->queuedNs = clockNs(CLOCK_MONOTONIC);
  if (s->tail) s->tail->next = w; else s->head = w;
  s->tail = w;
  s->pending++;
  pthread_cond_signal(&s->work);
  pthread_mutex_unlock(&s->mu);
  return 0;
}

static const ORProf_Stubs table = {
#if defined(SMALL_STRUCT)
    .unpaddedStructSize = offsetof(ORProf_Stubs, synchronize),
#elif defined(V1_SIZE)
    .unpaddedStructSize = ORPROF_STUBS_UNPADDED_SIZE_V1,
#else
    .unpaddedStructSize = ORPROF_STUBS_UNPADDED_SIZE,
#endif
    .abiVersion = ABI_VERSION,
    .deviceName = "testreg",
    .enabled = enabled,
    .deviceCount = deviceCount,
    .record = record,
    .elapsed = elapsed,
    .destroyEvent = destroyEvent,
#ifndef NO_RANGES
    .mark = mark,
    .rangePush = rangePush,
    .rangePop = rangePop,
#endif
    .onEachDevice = onEachDevice,
#ifndef NULL_SYNCHRONIZE
    .synchronize = synchronize,
#endif
    .lastError = lastError,
#ifndef NO_QUEUE_WORK
    .queueWork = queueWork,
#endif
};

#ifdef NO_GETSTUBS
const ORProf_Stubs* ORProf_GetStubsTypo(void) { return &table; }
#else
const ORProf_Stubs* ORProf_GetStubs(void) {
#ifdef NULL_TABLE
  (void)table;
  return NULL;
#else
  return &table;
#endif
}
#endif
