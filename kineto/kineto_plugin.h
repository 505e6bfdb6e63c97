/*
 * kineto_plugin.h - the C interface between a profiler plugin (a shared library) and a host
 * that loads it: orprof's kineto package, or any host following kineto PR #1148's dynamic
 * plugin ABI. The layouts below are that ABI's, byte for byte (x86-64 / arm64 LP64); this file
 * is C11 (anonymous unions) and C++, so a plugin can include it from either language.
 *
 * How it works
 *   The host scans the directory named by $KINETO_PLUGIN_LIB_DIR_PATH for regular "*.so" files,
 *   opens each one and calls its KinetoPlugin_register. The plugin calls
 *   pRegistry->registerProfiler(pRegistry->pRegistryHandle, &iface) once per profiler it offers
 *   and returns 0. The host copies iface, so it may live on the stack.
 *   For each profile the host then calls, per profiler:
 *     profilerQuery (once, with pProfilerHandle == NULL: name and supported event types),
 *     profilerCreate (with the enabled event types; the plugin assigns its session handle to
 *     params->pProfilerHandle, see KinetoPlugin_ProfilerCreate_Params), profilerStart,
 *     profilerPushCorrelationId / profilerPopCorrelationId around every operator (optional),
 *     profilerStop, profilerProcessEvents (the plugin reports its events through the trace
 *     builder, synchronously), profilerDestroy.
 *
 * Rules
 *   - Every struct starts with unpaddedStructSize: set it to the *_UNPADDED_STRUCT_SIZE macro of
 *     the struct. Receivers accept any size at least as large as the one they know; fields are
 *     only ever appended.
 *   - Every function returns 0 on success and non-zero on failure.
 *   - Timestamps are nanoseconds since the Unix epoch (UTC, CLOCK_REALTIME).
 *   - Strings and structs passed to the trace builder are copied before the call returns.
 *   - Metadata values are JSON text: a string carries its quotes ("\"fast\""), a list its
 *     brackets ("[1, 2, 3]"), a number is written as text ("42").
 *   - To link an event to the operator that launched it, add the metadata key "External id"
 *     with the id profilerPushCorrelationId gave while that operator ran; orprof writes it as
 *     the event's first arg and counts a linked kernel's time under that operator.
 *   - The push/pop correlation functions run on every operator: keep them short, never block.
 *     orprof calls them from whichever OS thread runs the operator's goroutine, so a pop may
 *     arrive on another thread than its push.
 */
#ifndef ORPROF_KINETO_PLUGIN_H
#define ORPROF_KINETO_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KINETO_PLUGIN_LIB_DIR_PATH_ENV_VARIABLE "KINETO_PLUGIN_LIB_DIR_PATH"

/* The size of T up to and including its field `last`, without trailing padding. */
#define KINETO_PLUGIN_UNPADDED_STRUCT_SIZE(T, last) \
  (offsetof(T, last) + sizeof(((T*)0)->last))

/* Event types. The values are this interface's own (not a host's internal numbering). */
typedef enum KinetoPlugin_ProfileEventType {
  KINETO_PLUGIN_PROFILE_EVENT_TYPE_INVALID = 0,
  KINETO_PLUGIN_PROFILE_EVENT_TYPE_CPU_OP = 1,
  KINETO_PLUGIN_PROFILE_EVENT_TYPE_USER_ANNOTATION = 2,
  KINETO_PLUGIN_PROFILE_EVENT_TYPE_GPU_USER_ANNOTATION = 3,
  KINETO_PLUGIN_PROFILE_EVENT_TYPE_GPU_MEMCPY = 4,
  KINETO_PLUGIN_PROFILE_EVENT_TYPE_GPU_MEMSET = 5,
  KINETO_PLUGIN_PROFILE_EVENT_TYPE_CONCURRENT_KERNEL = 6,
  KINETO_PLUGIN_PROFILE_EVENT_TYPE_EXTERNAL_CORRELATION = 7,
  KINETO_PLUGIN_PROFILE_EVENT_TYPE_CUDA_RUNTIME = 8,
  KINETO_PLUGIN_PROFILE_EVENT_TYPE_CUDA_DRIVER = 9,
  KINETO_PLUGIN_PROFILE_EVENT_TYPE_CPU_INSTANT_EVENT = 10,
  KINETO_PLUGIN_PROFILE_EVENT_TYPE_PYTHON_FUNCTION = 11,
  KINETO_PLUGIN_PROFILE_EVENT_TYPE_OVERHEAD = 12,
  KINETO_PLUGIN_PROFILE_EVENT_TYPE_MTIA_RUNTIME = 13,
  KINETO_PLUGIN_PROFILE_EVENT_TYPE_MTIA_CCP_EVENTS = 14,
  KINETO_PLUGIN_PROFILE_EVENT_TYPE_MTIA_INSIGHT = 15,
  KINETO_PLUGIN_PROFILE_EVENT_TYPE_CUDA_SYNC = 16,
  KINETO_PLUGIN_PROFILE_EVENT_TYPE_GLOW_RUNTIME = 17,
  KINETO_PLUGIN_PROFILE_EVENT_TYPE_CUDA_PROFILER_RANGE = 18,
  KINETO_PLUGIN_PROFILE_EVENT_TYPE_HPU_OP = 19,
  KINETO_PLUGIN_PROFILE_EVENT_TYPE_XPU_RUNTIME = 20,
  KINETO_PLUGIN_PROFILE_EVENT_TYPE_COLLECTIVE_COMM = 21,
  /* A counter sample: name = the counter track, one metadata entry per series (a number). */
  KINETO_PLUGIN_PROFILE_EVENT_TYPE_GPU_PM_COUNTER = 22,
  KINETO_PLUGIN_PROFILE_EVENT_TYPE_PRIVATEUSE1_RUNTIME = 23,
  KINETO_PLUGIN_PROFILE_EVENT_TYPE_PRIVATEUSE1_DRIVER = 24,
  KINETO_PLUGIN_PROFILE_EVENT_NUM_TYPES = 25
} KinetoPlugin_ProfileEventType;

/* Flow (arrow) kinds between events. */
typedef enum KinetoPlugin_ProfileEventFlowType {
  KINETO_PLUGIN_PROFILE_EVENT_FLOW_TYPE_INVALID = 0,
  KINETO_PLUGIN_PROFILE_EVENT_FLOW_TYPE_FWD_BWD = 1,   /* "fwdbwd" */
  KINETO_PLUGIN_PROFILE_EVENT_FLOW_TYPE_ASYNC_CPU_GPU = 2, /* "ac2g" */
  KINETO_PLUGIN_PROFILE_EVENT_NUM_FLOW_TYPES = 3
} KinetoPlugin_ProfileEventFlowType;

/* Opaque handles: a host's trace builder, a plugin's profiler session, a host's registry. */
typedef struct KinetoPlugin_TraceBuilderHandle KinetoPlugin_TraceBuilderHandle;
typedef struct KinetoPlugin_ProfilerHandle KinetoPlugin_ProfilerHandle;
typedef struct KinetoPlugin_RegistryHandle KinetoPlugin_RegistryHandle;

/* One event (48 bytes). Name, metadata and flow follow through the builder's set-last calls. */
typedef struct KinetoPlugin_ProfileEvent {
  size_t unpaddedStructSize;
  KinetoPlugin_ProfileEventType eventType;
  int64_t startTimeUtcNs;
  int64_t endTimeUtcNs;
  int64_t eventId;
  union {
    int32_t deviceId; /* the trace row's pid */
    int32_t processId;
  };
  union {
    int32_t resourceId; /* the trace row's tid (a stream, a thread) */
    int32_t threadId;
  };
} KinetoPlugin_ProfileEvent;
#define KINETO_PLUGIN_PROFILE_EVENT_UNPADDED_STRUCT_SIZE \
  KINETO_PLUGIN_UNPADDED_STRUCT_SIZE(KinetoPlugin_ProfileEvent, threadId)

/* The flow of the last event (unpadded 17 bytes). isStartPoint: true = "s", false = "f". */
typedef struct KinetoPlugin_ProfileEventFlow {
  size_t unpaddedStructSize;
  KinetoPlugin_ProfileEventFlowType flowType;
  uint32_t flowId; /* 0 = no flow */
  bool isStartPoint;
} KinetoPlugin_ProfileEventFlow;
#define KINETO_PLUGIN_PROFILE_EVENT_FLOW_UNPADDED_STRUCT_SIZE \
  KINETO_PLUGIN_UNPADDED_STRUCT_SIZE(KinetoPlugin_ProfileEventFlow, isStartPoint)

/* A process row of the trace: a device (40 bytes). NULL pName = the id; NULL pLabel = "". */
typedef struct KinetoPlugin_ProfileDeviceInfo {
  size_t unpaddedStructSize;
  int64_t deviceId;
  int64_t sortIndex;
  const char* pName;
  const char* pLabel;
} KinetoPlugin_ProfileDeviceInfo;
#define KINETO_PLUGIN_PROFILE_DEVICE_INFO_UNPADDED_STRUCT_SIZE \
  KINETO_PLUGIN_UNPADDED_STRUCT_SIZE(KinetoPlugin_ProfileDeviceInfo, pLabel)

/* A thread row of the trace: a stream or thread of a device (32 bytes). NULL pName = the id. */
typedef struct KinetoPlugin_ProfileResourceInfo {
  size_t unpaddedStructSize;
  union {
    int32_t deviceId;
    int32_t processId;
  };
  union {
    int32_t resourceId;
    int32_t threadId;
  };
  int32_t displayOrder;
  const char* pName;
} KinetoPlugin_ProfileResourceInfo;
#define KINETO_PLUGIN_PROFILE_RESOURCE_INFO_UNPADDED_STRUCT_SIZE \
  KINETO_PLUGIN_UNPADDED_STRUCT_SIZE(KinetoPlugin_ProfileResourceInfo, pName)

/* The host's trace builder, valid only during profilerProcessEvents (64 bytes). */
typedef struct KinetoPlugin_TraceBuilder {
  size_t unpaddedStructSize;
  KinetoPlugin_TraceBuilderHandle* pTraceBuilderHandle;
  int (*addEvent)(KinetoPlugin_TraceBuilderHandle*, const KinetoPlugin_ProfileEvent*);
  int (*setLastEventName)(KinetoPlugin_TraceBuilderHandle*, const char* pName);
  int (*setLastEventFlow)(KinetoPlugin_TraceBuilderHandle*, const KinetoPlugin_ProfileEventFlow*);
  int (*addLastEventMetadata)(KinetoPlugin_TraceBuilderHandle*, const char* pKey, const char* pValue);
  int (*addDeviceInfo)(KinetoPlugin_TraceBuilderHandle*, const KinetoPlugin_ProfileDeviceInfo*);
  int (*addResourceInfo)(KinetoPlugin_TraceBuilderHandle*, const KinetoPlugin_ProfileResourceInfo*);
} KinetoPlugin_TraceBuilder;
#define KINETO_PLUGIN_TRACE_BUILDER_UNPADDED_STRUCT_SIZE \
  KINETO_PLUGIN_UNPADDED_STRUCT_SIZE(KinetoPlugin_TraceBuilder, addResourceInfo)

/* profilerCreate. How the handle travels: the host zero-fills this struct (pProfilerHandle is
   NULL on entry); the plugin makes its session and assigns the field itself,
       params->pProfilerHandle = mySession;
   and the host reads the field back after create returns 0. The field is the handle, not a
   pointer to host storage: never write through it. The host then passes that same value as
   pProfilerHandle to start, stop, the correlation functions, processEvents and destroy of
   this session (NULL, if the plugin left it NULL). The enabled types are the requested ones
   the plugin supports; copy them (a Kineto host frees them when create returns). */
typedef struct KinetoPlugin_ProfilerCreate_Params {
  size_t unpaddedStructSize;
  KinetoPlugin_ProfilerHandle* pProfilerHandle;               /* [out], assigned by the plugin */
  const KinetoPlugin_ProfileEventType* pEnabledActivityTypes; /* [in] */
  size_t enabledActivityTypesMaxLen;                          /* the count */
} KinetoPlugin_ProfilerCreate_Params;
#define KINETO_PLUGIN_PROFILER_CREATE_PARAMS_UNPADDED_STRUCT_SIZE \
  KINETO_PLUGIN_UNPADDED_STRUCT_SIZE(KinetoPlugin_ProfilerCreate_Params, enabledActivityTypesMaxLen)

typedef struct KinetoPlugin_ProfilerDestroy_Params {
  size_t unpaddedStructSize;
  KinetoPlugin_ProfilerHandle* pProfilerHandle;
} KinetoPlugin_ProfilerDestroy_Params;
#define KINETO_PLUGIN_PROFILER_DESTROY_PARAMS_UNPADDED_STRUCT_SIZE \
  KINETO_PLUGIN_UNPADDED_STRUCT_SIZE(KinetoPlugin_ProfilerDestroy_Params, pProfilerHandle)

/* profilerQuery: called with pProfilerHandle == NULL. Write at most profilerNameMaxLen chars
   and a NUL into pProfilerName; write the supported types into pSupportedActivityTypes (at
   most supportedActivityTypesMaxLen; the host zeroes the array, INVALID entries are unused). */
typedef struct KinetoPlugin_ProfilerQuery_Params {
  size_t unpaddedStructSize;
  KinetoPlugin_ProfilerHandle* pProfilerHandle;
  char* pProfilerName;                                   /* [in/out] */
  size_t profilerNameMaxLen;                             /* excluding the NUL */
  KinetoPlugin_ProfileEventType* pSupportedActivityTypes; /* [in/out] */
  size_t supportedActivityTypesMaxLen;
} KinetoPlugin_ProfilerQuery_Params;
#define KINETO_PLUGIN_PROFILER_QUERY_PARAMS_UNPADDED_STRUCT_SIZE \
  KINETO_PLUGIN_UNPADDED_STRUCT_SIZE(KinetoPlugin_ProfilerQuery_Params, supportedActivityTypesMaxLen)

typedef struct KinetoPlugin_ProfilerStart_Params {
  size_t unpaddedStructSize;
  KinetoPlugin_ProfilerHandle* pProfilerHandle;
} KinetoPlugin_ProfilerStart_Params;
#define KINETO_PLUGIN_PROFILER_START_PARAMS_UNPADDED_STRUCT_SIZE \
  KINETO_PLUGIN_UNPADDED_STRUCT_SIZE(KinetoPlugin_ProfilerStart_Params, pProfilerHandle)

typedef struct KinetoPlugin_ProfilerStop_Params {
  size_t unpaddedStructSize;
  KinetoPlugin_ProfilerHandle* pProfilerHandle;
} KinetoPlugin_ProfilerStop_Params;
#define KINETO_PLUGIN_PROFILER_STOP_PARAMS_UNPADDED_STRUCT_SIZE \
  KINETO_PLUGIN_UNPADDED_STRUCT_SIZE(KinetoPlugin_ProfilerStop_Params, pProfilerHandle)

/* profilerProcessEvents: report every event through pTraceBuilder before returning. */
typedef struct KinetoPlugin_ProfilerProcessEvents_Params {
  size_t unpaddedStructSize;
  KinetoPlugin_ProfilerHandle* pProfilerHandle;
  const KinetoPlugin_TraceBuilder* pTraceBuilder;
} KinetoPlugin_ProfilerProcessEvents_Params;
#define KINETO_PLUGIN_PROFILER_PROCESS_EVENTS_PARAMS_UNPADDED_STRUCT_SIZE \
  KINETO_PLUGIN_UNPADDED_STRUCT_SIZE(KinetoPlugin_ProfilerProcessEvents_Params, pTraceBuilder)

/* Note the order: the id comes before the handle. */
typedef struct KinetoPlugin_ProfilerPushCorrelationId_Params {
  size_t unpaddedStructSize;
  uint64_t correlationId;
  KinetoPlugin_ProfilerHandle* pProfilerHandle;
} KinetoPlugin_ProfilerPushCorrelationId_Params;
#define KINETO_PLUGIN_PROFILER_PUSH_CORRELATION_ID_PARAMS_UNPADDED_STRUCT_SIZE \
  KINETO_PLUGIN_UNPADDED_STRUCT_SIZE(KinetoPlugin_ProfilerPushCorrelationId_Params, pProfilerHandle)

typedef struct KinetoPlugin_ProfilerPopCorrelationId_Params {
  size_t unpaddedStructSize;
  KinetoPlugin_ProfilerHandle* pProfilerHandle;
} KinetoPlugin_ProfilerPopCorrelationId_Params;
#define KINETO_PLUGIN_PROFILER_POP_CORRELATION_ID_PARAMS_UNPADDED_STRUCT_SIZE \
  KINETO_PLUGIN_UNPADDED_STRUCT_SIZE(KinetoPlugin_ProfilerPopCorrelationId_Params, pProfilerHandle)

typedef struct KinetoPlugin_ProfilerPushUserCorrelationId_Params {
  size_t unpaddedStructSize;
  uint64_t userCorrelationId;
  KinetoPlugin_ProfilerHandle* pProfilerHandle;
} KinetoPlugin_ProfilerPushUserCorrelationId_Params;
#define KINETO_PLUGIN_PROFILER_PUSH_USER_CORRELATION_ID_PARAMS_UNPADDED_STRUCT_SIZE \
  KINETO_PLUGIN_UNPADDED_STRUCT_SIZE(KinetoPlugin_ProfilerPushUserCorrelationId_Params, pProfilerHandle)

typedef struct KinetoPlugin_ProfilerPopUserCorrelationId_Params {
  size_t unpaddedStructSize;
  KinetoPlugin_ProfilerHandle* pProfilerHandle;
} KinetoPlugin_ProfilerPopUserCorrelationId_Params;
#define KINETO_PLUGIN_PROFILER_POP_USER_CORRELATION_ID_PARAMS_UNPADDED_STRUCT_SIZE \
  KINETO_PLUGIN_UNPADDED_STRUCT_SIZE(KinetoPlugin_ProfilerPopUserCorrelationId_Params, pProfilerHandle)

/* What a plugin registers (88 bytes). create, destroy, query, start, stop and processEvents
   are required; the four correlation functions may be NULL. */
typedef struct KinetoPlugin_ProfilerInterface {
  size_t unpaddedStructSize;
  int (*profilerCreate)(KinetoPlugin_ProfilerCreate_Params*);
  int (*profilerDestroy)(KinetoPlugin_ProfilerDestroy_Params*);
  int (*profilerQuery)(KinetoPlugin_ProfilerQuery_Params*);
  int (*profilerStart)(KinetoPlugin_ProfilerStart_Params*);
  int (*profilerStop)(KinetoPlugin_ProfilerStop_Params*);
  int (*profilerPushCorrelationId)(KinetoPlugin_ProfilerPushCorrelationId_Params*);
  int (*profilerPopCorrelationId)(KinetoPlugin_ProfilerPopCorrelationId_Params*);
  int (*profilerPushUserCorrelationId)(KinetoPlugin_ProfilerPushUserCorrelationId_Params*);
  int (*profilerPopUserCorrelationId)(KinetoPlugin_ProfilerPopUserCorrelationId_Params*);
  int (*profilerProcessEvents)(KinetoPlugin_ProfilerProcessEvents_Params*);
} KinetoPlugin_ProfilerInterface;
#define KINETO_PLUGIN_PROFILER_INTERFACE_UNPADDED_STRUCT_SIZE \
  KINETO_PLUGIN_UNPADDED_STRUCT_SIZE(KinetoPlugin_ProfilerInterface, profilerProcessEvents)

/* What the host passes to KinetoPlugin_register (24 bytes). */
typedef struct KinetoPlugin_Registry {
  size_t unpaddedStructSize;
  KinetoPlugin_RegistryHandle* pRegistryHandle;
  int (*registerProfiler)(KinetoPlugin_RegistryHandle*, const KinetoPlugin_ProfilerInterface*);
} KinetoPlugin_Registry;
#define KINETO_PLUGIN_REGISTRY_UNPADDED_STRUCT_SIZE \
  KINETO_PLUGIN_UNPADDED_STRUCT_SIZE(KinetoPlugin_Registry, registerProfiler)

/* The one symbol a plugin library exports. Return 0 when every registration succeeded. */
int KinetoPlugin_register(const KinetoPlugin_Registry* pRegistry);

#ifdef __cplusplus
}
#endif

#endif /* ORPROF_KINETO_PLUGIN_H */
