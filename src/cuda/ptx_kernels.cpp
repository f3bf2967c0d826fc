// The PTX of the stress kernels (see stress_kernels.h for their parameters).
// Written for PTX ISA 6.4 and .target sm_70, so every driver since CUDA 10.1
// can JIT it for any GPU from Volta on; tests assemble it with ptxas for
// sm_70 through sm_100 where a CUDA toolkit is present.
#include "cuda/stress_kernels.h"

#include <string>

namespace gpudoctor {
namespace {

// Grid-stride loops over 64-bit indices: any grid covers any size.
// The first index (%rd4) and the stride (%rd6) of a grid-stride loop, in
// %r1-%r5 and %rd4-%rd6, shared by copy, fill and verify.
constexpr const char kGridStride[] = R"PTX(
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mov.u32 %r4, %nctaid.x;
    mul.wide.u32 %rd4, %r1, %r2;
    cvt.u64.u32 %rd5, %r3;
    add.u64 %rd4, %rd4, %rd5;
    mul.wide.u32 %rd6, %r4, %r2;
)PTX";

// The module in pieces, each from one kernel's loop to the next kernel's
// grid-stride setup; StressKernelsPtx() puts kGridStride between them.
constexpr const char kCopyHead[] = R"PTX(
.version 6.4
.target sm_70
.address_size 64

.visible .entry gd_copy(
    .param .u64 gd_copy_dst,
    .param .u64 gd_copy_src,
    .param .u64 gd_copy_vectors)
{
    .reg .pred %p<2>;
    .reg .b32 %r<9>;
    .reg .b64 %rd<10>;

    ld.param.u64 %rd1, [gd_copy_dst];
    ld.param.u64 %rd2, [gd_copy_src];
    ld.param.u64 %rd3, [gd_copy_vectors];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
)PTX";

constexpr const char kCopyTail[] = R"PTX(COPY_LOOP:
    setp.ge.u64 %p1, %rd4, %rd3;
    @%p1 bra COPY_DONE;
    shl.b64 %rd7, %rd4, 4;
    add.u64 %rd8, %rd2, %rd7;
    ld.global.v4.u32 {%r5, %r6, %r7, %r8}, [%rd8];
    add.u64 %rd9, %rd1, %rd7;
    st.global.v4.u32 [%rd9], {%r5, %r6, %r7, %r8};
    add.u64 %rd4, %rd4, %rd6;
    bra.uni COPY_LOOP;
COPY_DONE:
    ret;
}

.visible .entry gd_fill(
    .param .u64 gd_fill_buf,
    .param .u64 gd_fill_words,
    .param .u64 gd_fill_pattern,
    .param .u32 gd_fill_mode)
{
    .reg .pred %p<3>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<12>;

    ld.param.u64 %rd1, [gd_fill_buf];
    ld.param.u64 %rd2, [gd_fill_words];
    ld.param.u64 %rd3, [gd_fill_pattern];
    ld.param.u32 %r5, [gd_fill_mode];
    setp.ne.u32 %p2, %r5, 0;
)PTX";

constexpr const char kFillTail[] = R"PTX(FILL_LOOP:
    setp.ge.u64 %p1, %rd4, %rd2;
    @%p1 bra FILL_DONE;
    shl.b64 %rd7, %rd4, 3;
    add.u64 %rd8, %rd1, %rd7;
    selp.b64 %rd9, %rd8, %rd3, %p2;
    cvta.to.global.u64 %rd10, %rd8;
    st.global.u64 [%rd10], %rd9;
    add.u64 %rd4, %rd4, %rd6;
    bra.uni FILL_LOOP;
FILL_DONE:
    ret;
}

.visible .entry gd_verify(
    .param .u64 gd_verify_buf,
    .param .u64 gd_verify_words,
    .param .u64 gd_verify_pattern,
    .param .u32 gd_verify_mode,
    .param .u64 gd_verify_result)
{
    .reg .pred %p<5>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<18>;

    ld.param.u64 %rd1, [gd_verify_buf];
    ld.param.u64 %rd2, [gd_verify_words];
    ld.param.u64 %rd3, [gd_verify_pattern];
    ld.param.u32 %r5, [gd_verify_mode];
    ld.param.u64 %rd11, [gd_verify_result];
    cvta.to.global.u64 %rd11, %rd11;
    setp.ne.u32 %p2, %r5, 0;
)PTX";

constexpr const char kVerifyTail[] = R"PTX(VERIFY_LOOP:
    setp.ge.u64 %p1, %rd4, %rd2;
    @%p1 bra VERIFY_DONE;
    shl.b64 %rd7, %rd4, 3;
    add.u64 %rd8, %rd1, %rd7;
    selp.b64 %rd9, %rd8, %rd3, %p2;
    cvta.to.global.u64 %rd10, %rd8;
    ld.global.u64 %rd12, [%rd10];
    setp.eq.u64 %p3, %rd12, %rd9;
    @%p3 bra VERIFY_NEXT;
    atom.global.add.u64 %rd13, [%rd11], 1;
    setp.ge.u64 %p4, %rd13, 8;
    @%p4 bra VERIFY_NEXT;
    shl.b64 %rd14, %rd13, 3;
    add.u64 %rd15, %rd11, %rd14;
    st.global.u64 [%rd15+8], %rd8;
VERIFY_NEXT:
    add.u64 %rd4, %rd4, %rd6;
    bra.uni VERIFY_LOOP;
VERIFY_DONE:
    ret;
}

.visible .entry gd_burn(
    .param .u64 gd_burn_out,
    .param .u32 gd_burn_iterations)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .f32 %f<12>;
    .reg .b64 %rd<5>;

    ld.param.u64 %rd1, [gd_burn_out];
    ld.param.u32 %r5, [gd_burn_iterations];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mad.lo.u32 %r4, %r1, %r2, %r3;
    cvt.rn.f32.u32 %f1, %r4;
    add.f32 %f2, %f1, 0f3F800000;
    add.f32 %f3, %f1, 0f40000000;
    add.f32 %f4, %f1, 0f40400000;
    add.f32 %f5, %f1, 0f40800000;
    add.f32 %f6, %f1, 0f40A00000;
    add.f32 %f7, %f1, 0f40C00000;
    add.f32 %f8, %f1, 0f40E00000;
    mov.f32 %f9, 0f3F7FF972;
    mov.f32 %f10, 0f38D1B717;
BURN_LOOP:
    setp.eq.u32 %p1, %r5, 0;
    @%p1 bra BURN_DONE;
    fma.rn.f32 %f1, %f1, %f9, %f10;
    fma.rn.f32 %f2, %f2, %f9, %f10;
    fma.rn.f32 %f3, %f3, %f9, %f10;
    fma.rn.f32 %f4, %f4, %f9, %f10;
    fma.rn.f32 %f5, %f5, %f9, %f10;
    fma.rn.f32 %f6, %f6, %f9, %f10;
    fma.rn.f32 %f7, %f7, %f9, %f10;
    fma.rn.f32 %f8, %f8, %f9, %f10;
    sub.u32 %r5, %r5, 1;
    bra.uni BURN_LOOP;
BURN_DONE:
    add.f32 %f1, %f1, %f2;
    add.f32 %f3, %f3, %f4;
    add.f32 %f5, %f5, %f6;
    add.f32 %f7, %f7, %f8;
    add.f32 %f1, %f1, %f3;
    add.f32 %f5, %f5, %f7;
    add.f32 %f1, %f1, %f5;
    mul.wide.u32 %rd2, %r4, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.f32 [%rd3], %f1;
    ret;
}
)PTX";

}  // namespace

const char* StressKernelsPtx() {
  static const std::string module = std::string(kCopyHead) + kGridStride + kCopyTail +
                                    kGridStride + kFillTail + kGridStride + kVerifyTail;
  return module.c_str();
}

}  // namespace gpudoctor
