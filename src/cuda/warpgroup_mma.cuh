// Warpgroup MMA (wgmma, compute capability 9.0 built as sm_90a) for the kernels whose products
// take FP16 B operands from shared memory: the four warps of a warpgroup issue one asynchronous
// product of 64 rows (16 a warp, A from each warp's registers in the m16n8k16 A fragment layout)
// by N columns, which the tensor cores read from shared memory themselves (no fragment loads in
// the warps), while the warps go on with other work until they wait for it.
// B in shared memory: the no-swizzle canonical layout of "core matrices", 8 columns (landmarks)
// by 8 FP16 values of k (16 bytes a column, 128 bytes a core matrix, contiguous); the core
// matrices of one k-step's two halves lie kLeading bytes apart, those of consecutive groups of 8
// columns `stride` bytes apart (warpgroupB gives the offset of column n, value k).
// The instructions here compile to nothing without __CUDA_ARCH_FEAT_SM90_ALL: the callers keep
// another path for other builds and devices (SEPAL_WGMMA says whether the host may choose this).
#pragma once

#include <cstdint>

namespace sepal::cuda::wgmma {

/// Bytes between the two core matrices of a k-step of 16 values (the descriptor's leading offset).
constexpr uint32_t kLeading = 128;

/// Byte offset in a B operand of column n (a landmark) and value k, for `rowValues` values of k
/// a column (a multiple of 16): core matrix (n / 8, k / 8), column n mod 8, value k mod 8.
__host__ __device__ constexpr uint32_t warpgroupB(uint32_t n, uint32_t k, uint32_t rowValues) {
    return ((n / 8) * (rowValues / 8) + k / 8) * 128 + (n % 8) * 16 + (k % 8) * 2;
}

/// The shared-memory matrix descriptor of a B operand at `at` (16-byte aligned) whose groups of 8
/// columns lie `stride` bytes apart: start, leading and stride offsets in 16-byte units, no
/// swizzle.
__device__ __forceinline__ uint64_t descriptor(const void* at, uint32_t stride) {
    const uint32_t address = static_cast<uint32_t>(__cvta_generic_to_shared(at));
    return uint64_t((address >> 4) & 0x3fffu) | (uint64_t((kLeading >> 4) & 0x3fffu) << 16) |
           (uint64_t((stride >> 4) & 0x3fffu) << 32);
}

/// Orders this thread's earlier accesses of the registers the warpgroup's next products use (their
/// accumulators and A) before those products (before every batch whose accumulators were read
/// meanwhile); shared-memory stores need fenceSharedStores.
__device__ __forceinline__ void fence() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}

/// Makes shared-memory stores of the generic proxy (plain st.shared) visible to the tensor cores'
/// reads; the block's barrier must follow before another thread's products read them.
__device__ __forceinline__ void fenceSharedStores() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

/// Closes the group of products issued since the last commit.
__device__ __forceinline__ void commit() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}

/// Waits until at most N committed groups of products are still running.
template <int N>
__device__ __forceinline__ void wait() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
#endif
}

/// Tells the compiler that the 32 accumulators of acc are read and changed here: after wait, so
/// that reads of them stay below it; before fence, so that the last reads stay above the next
/// products.
__device__ __forceinline__ void settle(float (&acc)[4][2][4]) {
    float* v = &acc[0][0][0];
    asm volatile(""
                 : "+f"(v[0]), "+f"(v[1]), "+f"(v[2]), "+f"(v[3]), "+f"(v[4]), "+f"(v[5]),
                   "+f"(v[6]), "+f"(v[7]), "+f"(v[8]), "+f"(v[9]), "+f"(v[10]), "+f"(v[11]),
                   "+f"(v[12]), "+f"(v[13]), "+f"(v[14]), "+f"(v[15])
                 :
                 : "memory");
    asm volatile(""
                 : "+f"(v[16]), "+f"(v[17]), "+f"(v[18]), "+f"(v[19]), "+f"(v[20]), "+f"(v[21]),
                   "+f"(v[22]), "+f"(v[23]), "+f"(v[24]), "+f"(v[25]), "+f"(v[26]), "+f"(v[27]),
                   "+f"(v[28]), "+f"(v[29]), "+f"(v[30]), "+f"(v[31])
                 :
                 : "memory");
}

/// acc[nt][mt][e] (+)= A x B for this warp's 16 rows of tile mt (m16n8 C layout of column block
/// nt: rows gq and gq + 8, columns 8 nt + 2 t4 and the next): A the FP16 m16n8k16 fragment a, B
/// 32 columns by 16 values at descriptor `b`; accumulate = 0 overwrites acc. Asynchronous: acc
/// and a must stay untouched until wait() has retired its group.
__device__ __forceinline__ void product32(float (&acc)[4][2][4], int mt, const uint32_t (&a)[4],
                                          uint64_t b, int accumulate) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %21, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 "
        "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, {%16,%17,%18,%19}, %20, p, 1, "
        "1, 0;\n}\n"
        : "+f"(acc[0][mt][0]), "+f"(acc[0][mt][1]), "+f"(acc[0][mt][2]), "+f"(acc[0][mt][3]),
          "+f"(acc[1][mt][0]), "+f"(acc[1][mt][1]), "+f"(acc[1][mt][2]), "+f"(acc[1][mt][3]),
          "+f"(acc[2][mt][0]), "+f"(acc[2][mt][1]), "+f"(acc[2][mt][2]), "+f"(acc[2][mt][3]),
          "+f"(acc[3][mt][0]), "+f"(acc[3][mt][1]), "+f"(acc[3][mt][2]), "+f"(acc[3][mt][3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(accumulate));
#else
    (void)acc, (void)mt, (void)a, (void)b, (void)accumulate;
#endif
}

}  // namespace sepal::cuda::wgmma
