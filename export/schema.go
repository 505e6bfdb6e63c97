package export

// SchemaVersion is the version of the tables' schema (docs/schema.md), written into every
// file's key-value metadata as "orprof.schema_version". A column is never renamed, retyped or
// given a new meaning within a version; a new column may be added.
const SchemaVersion = 1

// Table names: each is a directory of the output, one file per rank in it.
const (
	TableKernels     = "kernels"
	TableOps         = "ops"
	TableSteps       = "steps"
	TableCollectives = "collectives"
	TableIdle        = "idle"
	TableMemory      = "memory"
	TableOpsTree     = "ops_tree"
)

// Tables lists every table in the order they are written (ops_tree only with Options.OpsTree).
var Tables = []string{TableKernels, TableOps, TableSteps, TableCollectives, TableIdle, TableMemory, TableOpsTree}

// KernelRow is one device activity (the kernels table).
type KernelRow struct {
	Rank        int64  `parquet:"rank"`
	Device      int64  `parquet:"device"`
	Stream      int64  `parquet:"stream"`
	StartNs     int64  `parquet:"start_ns"`
	DurNs       int64  `parquet:"dur_ns"`
	Name        string `parquet:"name,dict"`
	Kind        string `parquet:"kind,dict"`
	DeviceTime  bool   `parquet:"device_time"`
	Category    string `parquet:"category,dict"`
	Op          string `parquet:"op,dict"`
	LinkRule    string `parquet:"link_rule,dict"`
	Correlation int64  `parquet:"correlation"`
	Launch      int64  `parquet:"launch"`
	Step        *int64 `parquet:"step,optional"`
	Collective  string `parquet:"collective,dict"`
	Group       string `parquet:"process_group,dict"`
	GroupDesc   string `parquet:"process_group_desc,dict"`
	GroupRanks  string `parquet:"process_group_ranks,dict"`
	GroupSize   *int64 `parquet:"group_size,optional"`
	Seq         *int64 `parquet:"seq,optional"`
	Src         *int64 `parquet:"src_rank,optional"`
	Dst         *int64 `parquet:"dst_rank,optional"`
	InNelems    *int64 `parquet:"in_nelems,optional"`
	Dtype       string `parquet:"dtype,dict"`
	// Added within version 1: the call's "Out msg nelems", its size in bytes
	// (collective.Call.Bytes) and its "Comms Id".
	OutNelems *int64 `parquet:"out_nelems,optional"`
	Bytes     *int64 `parquet:"bytes,optional"`
	CommsID   string `parquet:"comms_id,dict"`
}

// OpRow is one key_averages row of one rank (the ops table), with the table's own numbers.
type OpRow struct {
	Rank                  int64   `parquet:"rank"`
	Order                 int64   `parquet:"row_order"`
	Name                  string  `parquet:"name,dict"`
	NodeID                int64   `parquet:"node_id"`
	DeviceType            int64   `parquet:"device_type"`
	IsLegacy              bool    `parquet:"is_legacy"`
	IsUserAnnotation      bool    `parquet:"is_user_annotation"`
	IsAsync               bool    `parquet:"is_async"`
	IsRemote              bool    `parquet:"is_remote"`
	Scope                 int64   `parquet:"scope"`
	OverloadName          string  `parquet:"overload_name,dict"`
	InputShapes           string  `parquet:"input_shapes,dict"`
	Stack                 string  `parquet:"stack,dict"`
	HasParent             bool    `parquet:"has_parent"`
	Calls                 int64   `parquet:"calls"`
	CPUTimeTotalUs        float64 `parquet:"cpu_time_total_us"`
	SelfCPUTimeTotalUs    float64 `parquet:"self_cpu_time_total_us"`
	DeviceTimeTotalUs     float64 `parquet:"device_time_total_us"`
	SelfDeviceTimeTotalUs float64 `parquet:"self_device_time_total_us"`
	CPUMemoryUsage        int64   `parquet:"cpu_memory_usage"`
	SelfCPUMemoryUsage    int64   `parquet:"self_cpu_memory_usage"`
	DeviceMemoryUsage     int64   `parquet:"device_memory_usage"`
	SelfDeviceMemoryUsage int64   `parquet:"self_device_memory_usage"`
	Flops                 int64   `parquet:"flops"`
}

// StepRow is one ProfilerStep of one rank (the steps table): the timeline's breakdown of its
// window and the TensorBoard plugin's step-time breakdown.
type StepRow struct {
	Rank        int64 `parquet:"rank"`
	Step        int64 `parquet:"step"`
	HostStartNs int64 `parquet:"host_start_ns"`
	HostEndNs   int64 `parquet:"host_end_ns"`
	StartNs     int64 `parquet:"start_ns"`
	EndNs       int64 `parquet:"end_ns"`
	// The timeline's breakdown (timeline.Times).
	TotalNs                int64 `parquet:"total_ns"`
	BusyNs                 int64 `parquet:"busy_ns"`
	IdleNs                 int64 `parquet:"idle_ns"`
	ComputeNs              int64 `parquet:"compute_ns"`
	CommunicationNs        int64 `parquet:"communication_ns"`
	MemoryNs               int64 `parquet:"memory_ns"`
	OtherNs                int64 `parquet:"other_ns"`
	ExposedCommunicationNs int64 `parquet:"exposed_communication_ns"`
	ExposedMemoryNs        int64 `parquet:"exposed_memory_ns"`
	OverlapNs              int64 `parquet:"comm_compute_overlap_ns"`
	ExclusiveComputeNs     int64 `parquet:"exclusive_compute_ns"`
	ExclusiveCommNs        int64 `parquet:"exclusive_communication_ns"`
	ExclusiveMemoryNs      int64 `parquet:"exclusive_memory_ns"`
	ExclusiveOtherNs       int64 `parquet:"exclusive_other_ns"`
	ExclusiveIdleNs        int64 `parquet:"exclusive_idle_ns"`
	// The TensorBoard plugin's breakdown of the same step (tbsteps), null when it has none.
	TBTotalNs         *int64 `parquet:"tb_total_ns,optional"`
	TBKernelNs        *int64 `parquet:"tb_kernel_ns,optional"`
	TBMemcpyNs        *int64 `parquet:"tb_memcpy_ns,optional"`
	TBMemsetNs        *int64 `parquet:"tb_memset_ns,optional"`
	TBCommunicationNs *int64 `parquet:"tb_communication_ns,optional"`
	TBRuntimeNs       *int64 `parquet:"tb_runtime_ns,optional"`
	TBDataLoaderNs    *int64 `parquet:"tb_dataloader_ns,optional"`
	TBCPUExecNs       *int64 `parquet:"tb_cpu_exec_ns,optional"`
	TBOtherNs         *int64 `parquet:"tb_other_ns,optional"`
}

// CollectiveRow is one collective or point-to-point kernel of one rank (the collectives table).
type CollectiveRow struct {
	Rank       int64  `parquet:"rank"`
	Name       string `parquet:"name,dict"`
	Collective string `parquet:"collective,dict"`
	Group      string `parquet:"process_group,dict"`
	GroupRanks string `parquet:"process_group_ranks,dict"`
	Seq        *int64 `parquet:"seq,optional"`
	P2P        string `parquet:"p2p,dict"`
	Peer       *int64 `parquet:"peer,optional"`
	StartNs    int64  `parquet:"start_ns"`
	EndNs      int64  `parquet:"end_ns"`
	DurNs      int64  `parquet:"dur_ns"`
	// Added within version 1: the call's "Comms Id", its size in bytes and its group's size
	// (null: unknown).
	CommsID   string `parquet:"comms_id,dict"`
	Bytes     *int64 `parquet:"bytes,optional"`
	GroupSize *int64 `parquet:"group_size,optional"`
}

// IdleRow is one stream's idle time by cause (the idle table).
type IdleRow struct {
	Rank           int64 `parquet:"rank"`
	Device         int64 `parquet:"device"`
	Stream         int64 `parquet:"stream"`
	Events         int64 `parquet:"events"`
	SpanNs         int64 `parquet:"span_ns"`
	BusyNs         int64 `parquet:"busy_ns"`
	IdleNs         int64 `parquet:"idle_ns"`
	HostWaitNs     int64 `parquet:"host_wait_ns"`
	KernelWaitNs   int64 `parquet:"kernel_wait_ns"`
	OtherNs        int64 `parquet:"other_ns"`
	HostWaitGaps   int64 `parquet:"host_wait_gaps"`
	KernelWaitGaps int64 `parquet:"kernel_wait_gaps"`
	OtherGaps      int64 `parquet:"other_gaps"`
}

// MemoryRow is one "[memory]" record of one rank (the memory table): the curve is the
// running state after each.
type MemoryRow struct {
	Rank           int64  `parquet:"rank"`
	TimeNs         int64  `parquet:"time_ns"`
	DeviceType     int64  `parquet:"device_type"`
	DeviceID       int64  `parquet:"device_id"`
	Bytes          int64  `parquet:"bytes"`
	TotalAllocated *int64 `parquet:"total_allocated,optional"`
	TotalReserved  *int64 `parquet:"total_reserved,optional"`
	Pid            int64  `parquet:"pid"`
	Tid            int64  `parquet:"tid"`
}

// OpTreeRow is one node of a rank's op call tree (the ops_tree table): one call path of
// operators, or device work under the operator that launched it, with the path's times in ns
// (analysis/flame's tree: `orprof pprof`'s and the report's flame graph's figures).
type OpTreeRow struct {
	Rank   int64    `parquet:"rank"`
	Node   int64    `parquet:"node"`
	Parent *int64   `parquet:"parent,optional"`
	Depth  int64    `parquet:"depth"`
	Name   string   `parquet:"name,dict"`
	Kernel bool     `parquet:"kernel"`
	Path   []string `parquet:"path,list"`
	Calls  int64    `parquet:"calls"`
	// The path's totals (its subtree) and its own share.
	CPUNs        int64 `parquet:"cpu_ns"`
	SelfCPUNs    int64 `parquet:"self_cpu_ns"`
	DeviceNs     int64 `parquet:"device_ns"`
	SelfDeviceNs int64 `parquet:"self_device_ns"`
}
