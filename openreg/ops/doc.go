// Package ops is the tensor and operator library on the OpenReg runtime: float32 Tensors whose
// ops (Mm, Linear, Relu, CrossEntropy, …) launch kernels on a device's stream and record
// ATen-named operators with their shapes, a minimal autograd (Backward, NoGrad) and SGD. It also
// holds the built-in workloads `orprof run` profiles (Workloads).
package ops
