#!/usr/bin/env python3
"""A plain CUDA program without the CUDA runtime: the driver API (libcuda.so.1) through ctypes,
one PTX module JIT-compiled by the driver, so the same program runs under any CUPTI the tracer
is pointed at (CUDA 12.x wheels, the machine's CUDA 13). Issue #24.

It does, in this order: 8 host-to-device copies of 4 MiB from pageable memory, 4 memsets of
4 MiB, 20 launches of `vadd` (grid 4096 × 1 × 1, block 256 × 1 × 1), 10 of `scale` (grid
2048, block 512), 2 device-to-host copies of 4 MiB, then a context synchronize."""
import ctypes
import sys

PTX = rb"""
.version 7.0
.target sm_50
.address_size 64
.visible .entry vadd(.param .u64 a, .param .u64 b, .param .u64 c) {
  .reg .u32 %r<4>; .reg .u64 %rd<8>; .reg .f32 %f<4>;
  ld.param.u64 %rd1, [a]; ld.param.u64 %rd2, [b]; ld.param.u64 %rd3, [c];
  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x;
  mad.lo.u32 %r1, %r1, %r2, %r3; mul.wide.u32 %rd4, %r1, 4;
  add.u64 %rd5, %rd1, %rd4; add.u64 %rd6, %rd2, %rd4; add.u64 %rd7, %rd3, %rd4;
  ld.global.f32 %f1, [%rd5]; ld.global.f32 %f2, [%rd6]; add.f32 %f3, %f1, %f2; st.global.f32 [%rd7], %f3;
  ret;
}
.visible .entry scale(.param .u64 a) {
  .reg .u32 %r<4>; .reg .u64 %rd<4>; .reg .f32 %f<3>;
  ld.param.u64 %rd1, [a];
  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x;
  mad.lo.u32 %r1, %r1, %r2, %r3; mul.wide.u32 %rd2, %r1, 4; add.u64 %rd3, %rd1, %rd2;
  ld.global.f32 %f1, [%rd3]; mul.f32 %f2, %f1, 0f40000000; st.global.f32 [%rd3], %f2;
  ret;
}
"""


def main():
    cuda = ctypes.CDLL("libcuda.so.1")

    def ok(result, what):
        if result != 0:
            sys.exit(f"{what} failed: CUresult {result}")

    n = 1 << 20  # floats: 4 MiB
    ok(cuda.cuInit(0), "cuInit")
    dev = ctypes.c_int()
    ok(cuda.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
    ctx = ctypes.c_void_p()
    ok(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
    ok(cuda.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    module = ctypes.c_void_p()
    ok(cuda.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(PTX)), "cuModuleLoadData")
    vadd, scale = ctypes.c_void_p(), ctypes.c_void_p()
    ok(cuda.cuModuleGetFunction(ctypes.byref(vadd), module, b"vadd"), "vadd")
    ok(cuda.cuModuleGetFunction(ctypes.byref(scale), module, b"scale"), "scale")
    bufs = [ctypes.c_uint64() for _ in range(3)]
    for b in bufs:
        ok(cuda.cuMemAlloc_v2(ctypes.byref(b), ctypes.c_size_t(4 * n)), "cuMemAlloc")
    host = (ctypes.c_float * n)()
    for i in range(8):
        ok(cuda.cuMemcpyHtoD_v2(bufs[i % 2], host, ctypes.c_size_t(4 * n)), "cuMemcpyHtoD")
    for i in range(4):
        ok(cuda.cuMemsetD8_v2(bufs[2], ctypes.c_ubyte(0), ctypes.c_size_t(4 * n)), "cuMemsetD8")
    args3 = (ctypes.c_void_p * 3)(*[ctypes.cast(ctypes.pointer(b), ctypes.c_void_p) for b in bufs])
    for _ in range(20):
        ok(cuda.cuLaunchKernel(vadd, 4096, 1, 1, 256, 1, 1, 0, None, args3, None), "vadd launch")
    args1 = (ctypes.c_void_p * 1)(ctypes.cast(ctypes.pointer(bufs[2]), ctypes.c_void_p))
    for _ in range(10):
        ok(cuda.cuLaunchKernel(scale, 2048, 1, 1, 512, 1, 1, 0, None, args1, None), "scale launch")
    for _ in range(2):
        ok(cuda.cuMemcpyDtoH_v2(host, bufs[2], ctypes.c_size_t(4 * n)), "cuMemcpyDtoH")
    ok(cuda.cuCtxSynchronize(), "cuCtxSynchronize")
    print("cupti_cu12: 8 HtoD, 4 memsets, 20 vadd, 10 scale, 2 DtoH", flush=True)


if __name__ == "__main__":
    main()
