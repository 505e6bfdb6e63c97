// kineto_style_plugin.cc - a Kineto dynamic plugin written as kineto PR #1148's own unit test
// writes its mock: C++, a class of static functions, a per-session handle object that tracks
// whether it was created and is recording, profilerCreate assigning the new object to
// params->pProfilerHandle (the handle travels by value in that field), and four events (a
// runtime launch, a driver launch, a kernel, a copy) reported with their names.
//
// Unlike the mock it is strict about the handle: every call that takes one checks that it is
// the very object profilerCreate handed out and that is still alive, and fails (-1) when it is
// not; profilerQuery checks that it gets NULL, profilerCreate that the field is NULL on entry
// (the host zero-fills the params). ks_stats lets the tests read the counts.
//
// Written for orprof's tests from the ABI's facts; no code of kineto's is used.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <mutex>
#include <set>
#include <vector>

#include "kineto_plugin.h"

namespace {

constexpr uint64_t kMagic = 0x6b696e65746f4b53ULL;

// The session object behind a KinetoPlugin_ProfilerHandle.
struct Session {
  uint64_t magic = kMagic;
  bool created = false;
  bool active = false;
  int64_t startNs = 0;
  std::vector<KinetoPlugin_ProfileEventType> enabled;
};

std::mutex gMu;
std::set<const Session*> gLive;           // sessions created and not yet destroyed
std::atomic<long> gCreates{0}, gDestroys{0}, gChecked{0}, gBadHandles{0}, gBadCreateEntry{0},
    gBadQueryHandle{0}, gPushes{0}, gPops{0};

int64_t nowNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// session returns the live Session a handle names, or nullptr (and counts a bad handle).
Session* session(KinetoPlugin_ProfilerHandle* h) {
  gChecked++;
  auto* s = reinterpret_cast<Session*>(h);
  std::lock_guard<std::mutex> lock(gMu);
  if (s == nullptr || gLive.count(s) == 0 || s->magic != kMagic) {
    gBadHandles++;
    return nullptr;
  }
  return s;
}

class KinetoStylePlugin {
 public:
  static int create(KinetoPlugin_ProfilerCreate_Params* params) {
    if (params->pProfilerHandle != nullptr) gBadCreateEntry++;  // the host zero-fills
    auto* s = new Session();
    s->created = true;
    s->enabled.assign(params->pEnabledActivityTypes,
                      params->pEnabledActivityTypes + params->enabledActivityTypesMaxLen);
    {
      std::lock_guard<std::mutex> lock(gMu);
      gLive.insert(s);
    }
    params->pProfilerHandle = reinterpret_cast<KinetoPlugin_ProfilerHandle*>(s);
    gCreates++;
    return 0;
  }

  static int destroy(KinetoPlugin_ProfilerDestroy_Params* params) {
    Session* s = session(params->pProfilerHandle);
    if (s == nullptr) return -1;
    {
      std::lock_guard<std::mutex> lock(gMu);
      gLive.erase(s);
    }
    s->magic = 0;
    delete s;
    gDestroys++;
    return 0;
  }

  static int query(KinetoPlugin_ProfilerQuery_Params* params) {
    if (params->pProfilerHandle != nullptr) gBadQueryHandle++;
    std::snprintf(params->pProfilerName, params->profilerNameMaxLen + 1, "%s", "KinetoStylePlugin");
    const KinetoPlugin_ProfileEventType supported[] = {
        KINETO_PLUGIN_PROFILE_EVENT_TYPE_CUDA_RUNTIME, KINETO_PLUGIN_PROFILE_EVENT_TYPE_CUDA_DRIVER,
        KINETO_PLUGIN_PROFILE_EVENT_TYPE_CONCURRENT_KERNEL, KINETO_PLUGIN_PROFILE_EVENT_TYPE_GPU_MEMCPY};
    for (size_t i = 0; i < 4 && i < params->supportedActivityTypesMaxLen; i++) {
      params->pSupportedActivityTypes[i] = supported[i];
    }
    return 0;
  }

  static int start(KinetoPlugin_ProfilerStart_Params* params) {
    Session* s = session(params->pProfilerHandle);
    if (s == nullptr) return -1;
    s->active = true;
    s->startNs = nowNs();
    return 0;
  }

  static int stop(KinetoPlugin_ProfilerStop_Params* params) {
    Session* s = session(params->pProfilerHandle);
    if (s == nullptr || !s->active) return -1;
    // Its events end 70 us after the start: stop returns once they are over, as a device
    // drains its queue, so they lie inside the session.
    while (nowNs() < s->startNs + 70000) {
      timespec d{0, 10000};
      nanosleep(&d, nullptr);
    }
    s->active = false;
    return 0;
  }

  static int push(KinetoPlugin_ProfilerPushCorrelationId_Params* params) {
    if (session(params->pProfilerHandle) == nullptr) return -1;
    gPushes++;
    return 0;
  }

  static int pop(KinetoPlugin_ProfilerPopCorrelationId_Params* params) {
    if (session(params->pProfilerHandle) == nullptr) return -1;
    gPops++;
    return 0;
  }

  static int pushUser(KinetoPlugin_ProfilerPushUserCorrelationId_Params* params) {
    return session(params->pProfilerHandle) == nullptr ? -1 : 0;
  }

  static int popUser(KinetoPlugin_ProfilerPopUserCorrelationId_Params* params) {
    return session(params->pProfilerHandle) == nullptr ? -1 : 0;
  }

  static int processEvents(KinetoPlugin_ProfilerProcessEvents_Params* params) {
    Session* s = session(params->pProfilerHandle);
    if (s == nullptr) return -1;
    const KinetoPlugin_TraceBuilder* b = params->pTraceBuilder;
    struct Ev {
      KinetoPlugin_ProfileEventType type;
      int64_t from, to, id;
      int32_t resource;
      const char* name;
    };
    const Ev evs[] = {
        {KINETO_PLUGIN_PROFILE_EVENT_TYPE_CUDA_RUNTIME, 0, 5000, 1, 123, "launch"},
        {KINETO_PLUGIN_PROFILE_EVENT_TYPE_CUDA_DRIVER, 10000, 15000, 2, 124, "driver_launch"},
        {KINETO_PLUGIN_PROFILE_EVENT_TYPE_CONCURRENT_KERNEL, 20000, 50000, 3, 1, "ks_kernel"},
        {KINETO_PLUGIN_PROFILE_EVENT_TYPE_GPU_MEMCPY, 60000, 70000, 4, 2, "ks_copy"},
    };
    for (const Ev& e : evs) {
      bool on = false;
      for (auto t : s->enabled) on = on || t == e.type;
      if (!on) continue;
      KinetoPlugin_ProfileEvent ev{};
      ev.unpaddedStructSize = KINETO_PLUGIN_PROFILE_EVENT_UNPADDED_STRUCT_SIZE;
      ev.eventType = e.type;
      ev.startTimeUtcNs = s->startNs + e.from;
      ev.endTimeUtcNs = s->startNs + e.to;
      ev.eventId = e.id;
      ev.deviceId = 0;
      ev.resourceId = e.resource;
      if (b->addEvent(b->pTraceBuilderHandle, &ev) != 0) return -1;
      if (b->setLastEventName(b->pTraceBuilderHandle, e.name) != 0) return -1;
    }
    return 0;
  }
};

}  // namespace

extern "C" int KinetoPlugin_register(const KinetoPlugin_Registry* pRegistry) {
  KinetoPlugin_ProfilerInterface iface{};
  iface.unpaddedStructSize = KINETO_PLUGIN_PROFILER_INTERFACE_UNPADDED_STRUCT_SIZE;
  iface.profilerCreate = KinetoStylePlugin::create;
  iface.profilerDestroy = KinetoStylePlugin::destroy;
  iface.profilerQuery = KinetoStylePlugin::query;
  iface.profilerStart = KinetoStylePlugin::start;
  iface.profilerStop = KinetoStylePlugin::stop;
  iface.profilerPushCorrelationId = KinetoStylePlugin::push;
  iface.profilerPopCorrelationId = KinetoStylePlugin::pop;
  iface.profilerPushUserCorrelationId = KinetoStylePlugin::pushUser;
  iface.profilerPopUserCorrelationId = KinetoStylePlugin::popUser;
  iface.profilerProcessEvents = KinetoStylePlugin::processEvents;
  return pRegistry->registerProfiler(pRegistry->pRegistryHandle, &iface);
}

// For the tests: creates, destroys, handles checked, bad handles, create calls whose handle
// field was not NULL on entry, queries with a non-NULL handle, pushes, pops, live sessions.
extern "C" void ks_stats(long out[9]) {
  out[0] = gCreates;
  out[1] = gDestroys;
  out[2] = gChecked;
  out[3] = gBadHandles;
  out[4] = gBadCreateEntry;
  out[5] = gBadQueryHandle;
  out[6] = gPushes;
  out[7] = gPops;
  std::lock_guard<std::mutex> lock(gMu);
  out[8] = long(gLive.size());
}
