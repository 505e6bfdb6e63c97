/* sample_plugin.c - a Kineto dynamic plugin for orprof's tests. It reports the four events of
 * kineto PR #1148's DynamicPluginTest (a runtime launch, a driver launch, a kernel and a copy,
 * timed from the moment the profiler started), with names, metadata of every JSON kind, an
 * ac2g flow from the launch to the kernel, a GPU_PM_COUNTER series, and its device and
 * resource rows. It reports only the types it was created with. The sample_* functions let
 * the tests see what the host did. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kineto_plugin.h"

typedef KinetoPlugin_ProfileEventType EventType;

static const EventType kSupported[] = {
    KINETO_PLUGIN_PROFILE_EVENT_TYPE_CUDA_RUNTIME,
    KINETO_PLUGIN_PROFILE_EVENT_TYPE_CUDA_DRIVER,
    KINETO_PLUGIN_PROFILE_EVENT_TYPE_CONCURRENT_KERNEL,
    KINETO_PLUGIN_PROFILE_EVENT_TYPE_GPU_MEMCPY,
    KINETO_PLUGIN_PROFILE_EVENT_TYPE_GPU_PM_COUNTER,
};
#define NUM_SUPPORTED (sizeof(kSupported) / sizeof(kSupported[0]))

struct KinetoPlugin_ProfilerHandle {
  EventType enabled[KINETO_PLUGIN_PROFILE_EVENT_NUM_TYPES];
  size_t numEnabled;
  int64_t startNs;
  int64_t stopNs;
};

/* What the tests read back. */
static atomic_long gCreates, gDestroys, gStarts, gStops, gPushes, gPops;
static atomic_ullong gLastPushed;
static EventType gLastEnabled[KINETO_PLUGIN_PROFILE_EVENT_NUM_TYPES];
static size_t gLastNumEnabled;

/* The correlation stack of the calling thread. */
static _Thread_local uint64_t tStack[64];
static _Thread_local int tDepth;

static int64_t nowNs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int isEnabled(const KinetoPlugin_ProfilerHandle* h, EventType t) {
  for (size_t i = 0; i < h->numEnabled; i++) {
    if (h->enabled[i] == t) return 1;
  }
  return 0;
}

static int sampleCreate(KinetoPlugin_ProfilerCreate_Params* p) {
  if (p->unpaddedStructSize < KINETO_PLUGIN_PROFILER_CREATE_PARAMS_UNPADDED_STRUCT_SIZE) return -1;
  if (p->enabledActivityTypesMaxLen > KINETO_PLUGIN_PROFILE_EVENT_NUM_TYPES) return -1;
  KinetoPlugin_ProfilerHandle* h = calloc(1, sizeof *h);
  if (h == NULL) return -1;
  h->numEnabled = p->enabledActivityTypesMaxLen;
  memcpy(h->enabled, p->pEnabledActivityTypes, h->numEnabled * sizeof(EventType));
  memcpy(gLastEnabled, h->enabled, sizeof gLastEnabled);
  gLastNumEnabled = h->numEnabled;
  p->pProfilerHandle = h; /* the handle travels by value: assign the field */
  atomic_fetch_add(&gCreates, 1);
  return 0;
}

static int sampleDestroy(KinetoPlugin_ProfilerDestroy_Params* p) {
  free(p->pProfilerHandle);
  atomic_fetch_add(&gDestroys, 1);
  return 0;
}

static int sampleQuery(KinetoPlugin_ProfilerQuery_Params* p) {
  if (p->pProfilerHandle != NULL) return -1; /* the host queries before any create */
  snprintf(p->pProfilerName, p->profilerNameMaxLen + 1, "%s", "SamplePlugin");
  for (size_t i = 0; i < NUM_SUPPORTED && i < p->supportedActivityTypesMaxLen; i++) {
    p->pSupportedActivityTypes[i] = kSupported[i];
  }
  return 0;
}

static int sampleStart(KinetoPlugin_ProfilerStart_Params* p) {
  p->pProfilerHandle->startNs = nowNs();
  atomic_fetch_add(&gStarts, 1);
  return 0;
}

/* The events it reports end 70 us after the start: like a device draining its queue, stop
   returns only once they are over, so they lie inside the session. */
#define SAMPLE_SPAN_NS 70000

static void waitUntil(int64_t t) {
  while (nowNs() < t) {
    struct timespec d = {0, 10000};
    nanosleep(&d, NULL);
  }
}

static int sampleStop(KinetoPlugin_ProfilerStop_Params* p) {
  waitUntil(p->pProfilerHandle->startNs + SAMPLE_SPAN_NS);
  p->pProfilerHandle->stopNs = nowNs();
  atomic_fetch_add(&gStops, 1);
  return 0;
}

static int samplePush(KinetoPlugin_ProfilerPushCorrelationId_Params* p) {
  if (tDepth < 64) tStack[tDepth] = p->correlationId;
  tDepth++;
  atomic_store_explicit(&gLastPushed, p->correlationId, memory_order_relaxed);
  atomic_fetch_add_explicit(&gPushes, 1, memory_order_relaxed);
  return 0;
}

static int samplePop(KinetoPlugin_ProfilerPopCorrelationId_Params* p) {
  (void)p;
  if (tDepth > 0) tDepth--;
  atomic_fetch_add_explicit(&gPops, 1, memory_order_relaxed);
  return 0;
}

static void addEvent(const KinetoPlugin_TraceBuilder* b, EventType type, int64_t start, int64_t end,
                     int64_t id, int32_t device, int32_t resource, const char* name) {
  KinetoPlugin_ProfileEvent ev;
  memset(&ev, 0, sizeof ev);
  ev.unpaddedStructSize = KINETO_PLUGIN_PROFILE_EVENT_UNPADDED_STRUCT_SIZE;
  ev.eventType = type;
  ev.startTimeUtcNs = start;
  ev.endTimeUtcNs = end;
  ev.eventId = id;
  ev.deviceId = device;
  ev.resourceId = resource;
  b->addEvent(b->pTraceBuilderHandle, &ev);
  char copy[64]; /* the host copies names: hand it a buffer that dies right after */
  snprintf(copy, sizeof copy, "%s", name);
  b->setLastEventName(b->pTraceBuilderHandle, copy);
}

static void setFlow(const KinetoPlugin_TraceBuilder* b, uint32_t id, bool start) {
  KinetoPlugin_ProfileEventFlow f;
  memset(&f, 0, sizeof f);
  f.unpaddedStructSize = KINETO_PLUGIN_PROFILE_EVENT_FLOW_UNPADDED_STRUCT_SIZE;
  f.flowType = KINETO_PLUGIN_PROFILE_EVENT_FLOW_TYPE_ASYNC_CPU_GPU;
  f.flowId = id;
  f.isStartPoint = start;
  b->setLastEventFlow(b->pTraceBuilderHandle, &f);
}

static void linkToOp(const KinetoPlugin_TraceBuilder* b) {
  unsigned long long op = atomic_load(&gLastPushed);
  if (op == 0) return;
  char v[32];
  snprintf(v, sizeof v, "%llu", op);
  b->addLastEventMetadata(b->pTraceBuilderHandle, "External id", v);
}

static int sampleProcessEvents(KinetoPlugin_ProfilerProcessEvents_Params* p) {
  const KinetoPlugin_ProfilerHandle* h = p->pProfilerHandle;
  const KinetoPlugin_TraceBuilder* b = p->pTraceBuilder;
  if (b->unpaddedStructSize < KINETO_PLUGIN_TRACE_BUILDER_UNPADDED_STRUCT_SIZE) return -1;
  const int64_t base = h->startNs;

  KinetoPlugin_ProfileDeviceInfo dev = {KINETO_PLUGIN_PROFILE_DEVICE_INFO_UNPADDED_STRUCT_SIZE, 7, 5000007,
                                        "Sample GPU 7", "GPU 7"};
  b->addDeviceInfo(b->pTraceBuilderHandle, &dev);
  const struct { int32_t res; int32_t order; const char* name; } rows[] = {
      {1, 1, "stream 1 "}, {2, 2, "stream 2 "}, {123, 123, "runtime thread"}, {124, 124, NULL}};
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    KinetoPlugin_ProfileResourceInfo r;
    memset(&r, 0, sizeof r);
    r.unpaddedStructSize = KINETO_PLUGIN_PROFILE_RESOURCE_INFO_UNPADDED_STRUCT_SIZE;
    r.deviceId = 7;
    r.resourceId = rows[i].res;
    r.displayOrder = rows[i].order;
    r.pName = rows[i].name;
    b->addResourceInfo(b->pTraceBuilderHandle, &r);
  }

  if (isEnabled(h, KINETO_PLUGIN_PROFILE_EVENT_TYPE_CUDA_RUNTIME)) {
    addEvent(b, KINETO_PLUGIN_PROFILE_EVENT_TYPE_CUDA_RUNTIME, base, base + 5000, 1, 7, 123, "cudaLaunchKernel");
    b->addLastEventMetadata(b->pTraceBuilderHandle, "cbid", "211");
    linkToOp(b);
    setFlow(b, 77, true);
  }
  if (isEnabled(h, KINETO_PLUGIN_PROFILE_EVENT_TYPE_CUDA_DRIVER)) {
    addEvent(b, KINETO_PLUGIN_PROFILE_EVENT_TYPE_CUDA_DRIVER, base + 10000, base + 15000, 2, 7, 124, "cuLaunchKernel");
  }
  if (isEnabled(h, KINETO_PLUGIN_PROFILE_EVENT_TYPE_CONCURRENT_KERNEL)) {
    /* an id past 32 bits: the host must not cut it */
    addEvent(b, KINETO_PLUGIN_PROFILE_EVENT_TYPE_CONCURRENT_KERNEL, base + 20000, base + 50000, 0x100000003LL, 7, 1,
             "test_kernel");
    b->addLastEventMetadata(b->pTraceBuilderHandle, "kind", "\"compute\"");
    b->addLastEventMetadata(b->pTraceBuilderHandle, "registers per thread", "32");
    b->addLastEventMetadata(b->pTraceBuilderHandle, "grid", "[1, 2, 3]");
    linkToOp(b);
    setFlow(b, 77, false);
  }
  if (isEnabled(h, KINETO_PLUGIN_PROFILE_EVENT_TYPE_GPU_MEMCPY)) {
    addEvent(b, KINETO_PLUGIN_PROFILE_EVENT_TYPE_GPU_MEMCPY, base + 60000, base + 70000, 4, 7, 2, "cudaMemcpyHtoD");
    b->addLastEventMetadata(b->pTraceBuilderHandle, "bytes", "4096");
  }
  if (isEnabled(h, KINETO_PLUGIN_PROFILE_EVENT_TYPE_GPU_PM_COUNTER)) {
    const char* active[] = {"0.5", "0.75", "0"};
    const char* dram[] = {"120", "340", "0"};
    for (int i = 0; i < 3; i++) {
      addEvent(b, KINETO_PLUGIN_PROFILE_EVENT_TYPE_GPU_PM_COUNTER, base + 20000 + 15000 * i, 0, 100 + i, 7, 1,
               "gpu_pm");
      b->addLastEventMetadata(b->pTraceBuilderHandle, "sm_active", active[i]);
      b->addLastEventMetadata(b->pTraceBuilderHandle, "dram_bw", dram[i]);
    }
  }
  return 0;
}

int KinetoPlugin_register(const KinetoPlugin_Registry* pRegistry) {
  if (pRegistry == NULL || pRegistry->unpaddedStructSize < KINETO_PLUGIN_REGISTRY_UNPADDED_STRUCT_SIZE) return -1;
  KinetoPlugin_ProfilerInterface iface; /* on the stack: the host copies it */
  memset(&iface, 0, sizeof iface);
  iface.unpaddedStructSize = KINETO_PLUGIN_PROFILER_INTERFACE_UNPADDED_STRUCT_SIZE;
  iface.profilerCreate = sampleCreate;
  iface.profilerDestroy = sampleDestroy;
  iface.profilerQuery = sampleQuery;
  iface.profilerStart = sampleStart;
  iface.profilerStop = sampleStop;
  iface.profilerPushCorrelationId = samplePush;
  iface.profilerPopCorrelationId = samplePop;
  iface.profilerProcessEvents = sampleProcessEvents;
  return pRegistry->registerProfiler(pRegistry->pRegistryHandle, &iface);
}

/* For the tests. */
void sample_counts(long out[6]) {
  out[0] = atomic_load(&gCreates);
  out[1] = atomic_load(&gDestroys);
  out[2] = atomic_load(&gStarts);
  out[3] = atomic_load(&gStops);
  out[4] = atomic_load(&gPushes);
  out[5] = atomic_load(&gPops);
}

size_t sample_last_enabled(int32_t* out, size_t max) {
  size_t n = gLastNumEnabled < max ? gLastNumEnabled : max;
  for (size_t i = 0; i < n; i++) out[i] = (int32_t)gLastEnabled[i];
  return gLastNumEnabled;
}

void sample_reset_last_pushed(void) { atomic_store(&gLastPushed, 0); }
