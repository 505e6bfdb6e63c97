/* layout.c - prints the size, unpadded size and field offsets of every struct of
 * kineto_plugin.h as "Struct.field offset" lines, for the test that checks the Go mirrors. */
#include <stdio.h>

#include "kineto_plugin.h"

#define OFF(T, f) printf("%s.%s %zu\n", #T, #f, offsetof(T, f))
#define SIZE(T, last) printf("%s.sizeof %zu\n%s.unpadded %zu\n", #T, sizeof(T), #T, \
                             KINETO_PLUGIN_UNPADDED_STRUCT_SIZE(T, last))

int main(void) {
  OFF(KinetoPlugin_ProfileEvent, eventType); OFF(KinetoPlugin_ProfileEvent, startTimeUtcNs);
  OFF(KinetoPlugin_ProfileEvent, endTimeUtcNs); OFF(KinetoPlugin_ProfileEvent, eventId);
  OFF(KinetoPlugin_ProfileEvent, deviceId); OFF(KinetoPlugin_ProfileEvent, resourceId);
  SIZE(KinetoPlugin_ProfileEvent, threadId);
  OFF(KinetoPlugin_ProfileEventFlow, flowType); OFF(KinetoPlugin_ProfileEventFlow, flowId);
  OFF(KinetoPlugin_ProfileEventFlow, isStartPoint);
  SIZE(KinetoPlugin_ProfileEventFlow, isStartPoint);
  OFF(KinetoPlugin_ProfileDeviceInfo, deviceId); OFF(KinetoPlugin_ProfileDeviceInfo, sortIndex);
  OFF(KinetoPlugin_ProfileDeviceInfo, pName); OFF(KinetoPlugin_ProfileDeviceInfo, pLabel);
  SIZE(KinetoPlugin_ProfileDeviceInfo, pLabel);
  OFF(KinetoPlugin_ProfileResourceInfo, deviceId); OFF(KinetoPlugin_ProfileResourceInfo, resourceId);
  OFF(KinetoPlugin_ProfileResourceInfo, displayOrder); OFF(KinetoPlugin_ProfileResourceInfo, pName);
  SIZE(KinetoPlugin_ProfileResourceInfo, pName);
  OFF(KinetoPlugin_TraceBuilder, pTraceBuilderHandle); OFF(KinetoPlugin_TraceBuilder, addEvent);
  OFF(KinetoPlugin_TraceBuilder, setLastEventName); OFF(KinetoPlugin_TraceBuilder, setLastEventFlow);
  OFF(KinetoPlugin_TraceBuilder, addLastEventMetadata); OFF(KinetoPlugin_TraceBuilder, addDeviceInfo);
  OFF(KinetoPlugin_TraceBuilder, addResourceInfo);
  SIZE(KinetoPlugin_TraceBuilder, addResourceInfo);
  OFF(KinetoPlugin_ProfilerCreate_Params, pProfilerHandle);
  OFF(KinetoPlugin_ProfilerCreate_Params, pEnabledActivityTypes);
  OFF(KinetoPlugin_ProfilerCreate_Params, enabledActivityTypesMaxLen);
  SIZE(KinetoPlugin_ProfilerCreate_Params, enabledActivityTypesMaxLen);
  OFF(KinetoPlugin_ProfilerDestroy_Params, pProfilerHandle);
  SIZE(KinetoPlugin_ProfilerDestroy_Params, pProfilerHandle);
  OFF(KinetoPlugin_ProfilerQuery_Params, pProfilerHandle); OFF(KinetoPlugin_ProfilerQuery_Params, pProfilerName);
  OFF(KinetoPlugin_ProfilerQuery_Params, profilerNameMaxLen);
  OFF(KinetoPlugin_ProfilerQuery_Params, pSupportedActivityTypes);
  OFF(KinetoPlugin_ProfilerQuery_Params, supportedActivityTypesMaxLen);
  SIZE(KinetoPlugin_ProfilerQuery_Params, supportedActivityTypesMaxLen);
  OFF(KinetoPlugin_ProfilerProcessEvents_Params, pProfilerHandle);
  OFF(KinetoPlugin_ProfilerProcessEvents_Params, pTraceBuilder);
  SIZE(KinetoPlugin_ProfilerProcessEvents_Params, pTraceBuilder);
  OFF(KinetoPlugin_ProfilerPushCorrelationId_Params, correlationId);
  OFF(KinetoPlugin_ProfilerPushCorrelationId_Params, pProfilerHandle);
  SIZE(KinetoPlugin_ProfilerPushCorrelationId_Params, pProfilerHandle);
  OFF(KinetoPlugin_ProfilerInterface, profilerCreate); OFF(KinetoPlugin_ProfilerInterface, profilerDestroy);
  OFF(KinetoPlugin_ProfilerInterface, profilerQuery); OFF(KinetoPlugin_ProfilerInterface, profilerStart);
  OFF(KinetoPlugin_ProfilerInterface, profilerStop);
  OFF(KinetoPlugin_ProfilerInterface, profilerPushCorrelationId);
  OFF(KinetoPlugin_ProfilerInterface, profilerPopCorrelationId);
  OFF(KinetoPlugin_ProfilerInterface, profilerPushUserCorrelationId);
  OFF(KinetoPlugin_ProfilerInterface, profilerPopUserCorrelationId);
  OFF(KinetoPlugin_ProfilerInterface, profilerProcessEvents);
  SIZE(KinetoPlugin_ProfilerInterface, profilerProcessEvents);
  OFF(KinetoPlugin_Registry, pRegistryHandle); OFF(KinetoPlugin_Registry, registerProfiler);
  SIZE(KinetoPlugin_Registry, registerProfiler);
  return 0;
}
