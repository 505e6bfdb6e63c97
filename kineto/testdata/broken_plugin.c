/* broken_plugin.c - plugins that are wrong in one way each, for orprof's tests. Compile with
 * exactly one of:
 *   -DREGISTER_FAILS   KinetoPlugin_register returns non-zero
 *   -DSMALL_INTERFACE  the interface says unpaddedStructSize 80 (< 88)
 *   -DNO_START         profilerStart is NULL
 *   -DCREATE_FAILS     profilerCreate returns non-zero
 *   -DBAD_EVENTS       loads fine; processEvents reports an event of size 24 (< 48), invalid
 *                      JSON metadata, an unknown flow type and a name before any event
 *   -DNO_REGISTER      exports no KinetoPlugin_register at all
 *   -DREGISTER_NULL    calls registerProfiler(handle, NULL) first (fails with 99 unless the
 *                      host answers -1), then registers a good profiler
 *   -DQUERY_FAILS      profilerQuery writes a name and types, then returns -3
 *   -DLONG_NAME        a 40-character name, cut to profilerNameMaxLen as the header asks
 *   -DNAME_OVERFLOW    a 40-character name copied ignoring profilerNameMaxLen
 *   -DEMPTY_NAME       profilerQuery leaves the name empty
 *   -DREGISTER_NONE    KinetoPlugin_register returns 0 without registering anything
 *   -DREGISTER_TWO     registers two profilers: BrokenPlugin and SecondPlugin
 *   -DTYPES_OVERFLOW   profilerQuery writes 30 supported types, ignoring supportedActivityTypesMaxLen
 *   -DNULL_HANDLE      profilerCreate returns 0 and leaves params->pProfilerHandle NULL
 *   -DOLD_HANDLE       profilerCreate writes its handle through params->pProfilerHandle, as an
 *                      older orprof header wrongly said: under a host that zero-fills the
 *                      params (Kineto's, orprof's) that is a write through NULL
 * None has correlation functions: they are optional. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "kineto_plugin.h"

#ifdef NO_REGISTER
int not_a_kineto_plugin(void) { return 42; }
#else

#if !defined(CREATE_FAILS) && !defined(NULL_HANDLE)
static int dummy;
#endif

static int brokenCreate(KinetoPlugin_ProfilerCreate_Params* p) {
#if defined(CREATE_FAILS)
  (void)p;
  return -7;
#elif defined(NULL_HANDLE)
  (void)p;
  return 0;
#elif defined(OLD_HANDLE)
  *(KinetoPlugin_ProfilerHandle* volatile*)(void*)p->pProfilerHandle = (KinetoPlugin_ProfilerHandle*)&dummy;
  return 0;
#else
  p->pProfilerHandle = (KinetoPlugin_ProfilerHandle*)&dummy;
  return 0;
#endif
}

static int brokenDestroy(KinetoPlugin_ProfilerDestroy_Params* p) { (void)p; return 0; }

#define LONG_NAME_TEXT "ABrokenPluginWithANameOf40Characters____"

static int brokenQuery(KinetoPlugin_ProfilerQuery_Params* p) {
#if defined(LONG_NAME)
  snprintf(p->pProfilerName, p->profilerNameMaxLen + 1, "%s", LONG_NAME_TEXT);
#elif defined(NAME_OVERFLOW)
  strcpy(p->pProfilerName, LONG_NAME_TEXT); /* wrong: ignores profilerNameMaxLen */
#elif defined(EMPTY_NAME)
  p->pProfilerName[0] = 0;
#else
  strcpy(p->pProfilerName, "BrokenPlugin");
#endif
  p->pSupportedActivityTypes[0] = KINETO_PLUGIN_PROFILE_EVENT_TYPE_CPU_OP;
  p->pSupportedActivityTypes[1] = KINETO_PLUGIN_PROFILE_EVENT_TYPE_CONCURRENT_KERNEL;
#ifdef TYPES_OVERFLOW
  for (int i = 2; i < 30; i++) p->pSupportedActivityTypes[i] = KINETO_PLUGIN_PROFILE_EVENT_TYPE_GPU_MEMCPY;
#endif
#ifdef QUERY_FAILS
  return -3;
#else
  return 0;
#endif
}

#ifdef REGISTER_TWO
static int secondQuery(KinetoPlugin_ProfilerQuery_Params* p) {
  strcpy(p->pProfilerName, "SecondPlugin");
  p->pSupportedActivityTypes[0] = KINETO_PLUGIN_PROFILE_EVENT_TYPE_GPU_MEMCPY;
  return 0;
}
#endif

static int brokenStart(KinetoPlugin_ProfilerStart_Params* p) { (void)p; return 0; }
static int brokenStop(KinetoPlugin_ProfilerStop_Params* p) { (void)p; return 0; }

static int brokenProcessEvents(KinetoPlugin_ProfilerProcessEvents_Params* p) {
#ifdef BAD_EVENTS
  const KinetoPlugin_TraceBuilder* b = p->pTraceBuilder;
  KinetoPlugin_TraceBuilderHandle* h = b->pTraceBuilderHandle;
  b->setLastEventName(h, "too early");

  KinetoPlugin_ProfileEvent ev;
  memset(&ev, 0, sizeof ev);
  ev.unpaddedStructSize = 24; /* the size kineto PR #1148 wrongly checked against */
  ev.eventType = KINETO_PLUGIN_PROFILE_EVENT_TYPE_CPU_OP;
  ev.startTimeUtcNs = 1000;
  ev.endTimeUtcNs = 2000;
  ev.eventId = 1;
  b->addEvent(h, &ev);
  b->setLastEventName(h, "rejected event");

  ev.unpaddedStructSize = KINETO_PLUGIN_PROFILE_EVENT_UNPADDED_STRUCT_SIZE;
  ev.eventId = 0x100000002LL; /* past 32 bits: the host must not cut it */
  b->addEvent(h, &ev);
  b->setLastEventName(h, "good event");
  b->addLastEventMetadata(h, "note", "not json");
  b->addLastEventMetadata(h, "count", "3");
  b->addLastEventMetadata(h, "count", "4");
  KinetoPlugin_ProfileEventFlow f;
  memset(&f, 0, sizeof f);
  f.unpaddedStructSize = KINETO_PLUGIN_PROFILE_EVENT_FLOW_UNPADDED_STRUCT_SIZE;
  f.flowType = (KinetoPlugin_ProfileEventFlowType)9;
  f.flowId = 5;
  b->setLastEventFlow(h, &f);
#else
  (void)p;
#endif
  return 0;
}

int KinetoPlugin_register(const KinetoPlugin_Registry* pRegistry) {
  KinetoPlugin_ProfilerInterface iface;
  memset(&iface, 0, sizeof iface);
  iface.unpaddedStructSize = KINETO_PLUGIN_PROFILER_INTERFACE_UNPADDED_STRUCT_SIZE;
  iface.profilerCreate = brokenCreate;
  iface.profilerDestroy = brokenDestroy;
  iface.profilerQuery = brokenQuery;
  iface.profilerStart = brokenStart;
  iface.profilerStop = brokenStop;
  iface.profilerProcessEvents = brokenProcessEvents;
#ifdef SMALL_INTERFACE
  iface.unpaddedStructSize = 80;
#endif
#ifdef NO_START
  iface.profilerStart = NULL;
#endif
#ifdef REGISTER_NONE
  (void)iface;
  (void)pRegistry;
  return 0;
#endif
#ifdef REGISTER_NULL
  if (pRegistry->registerProfiler(pRegistry->pRegistryHandle, NULL) != -1) return 99;
#endif
  int rc = pRegistry->registerProfiler(pRegistry->pRegistryHandle, &iface);
#ifdef REGISTER_TWO
  iface.profilerQuery = secondQuery;
  rc |= pRegistry->registerProfiler(pRegistry->pRegistryHandle, &iface);
#endif
#ifdef REGISTER_FAILS
  (void)rc;
  return 3;
#else
  (void)rc; /* a careless plugin: ignores the host's answer */
  return 0;
#endif
}
#endif
