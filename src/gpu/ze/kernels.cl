/* kernels.cl - the Level Zero backend's device kernels in OpenCL C: one OpenSHMEM atomic on a word of device memory
 * (own or IPC-mapped), and the reduction step acc[i] = acc[i] OP in[i] of collectives on GPU memory, as kernels.cu.
 * Built to SPIR-V at build time (clang -target spir64, llvm-spirv) and embedded; gtl_ze.c loads it with
 * zeModuleCreate. With GSHMEM_ZE_FP64 only the double and double complex reductions (some GPUs lack fp64, and a
 * module using it would not load there), without it everything else. Op codes and kernel names are gtl_ze.c's. */
#pragma OPENCL FP_CONTRACT OFF /* no fused multiply-add: float results match the host's reduction bit for bit */

#define RED(name, T, EXPR)                                                                                             \
    kernel void gshmemi_red_##name(global T *a, global const T *b, ulong n) {                                          \
        for (size_t i = get_global_id(0); i < n; i += get_global_size(0))                                              \
            EXPR;                                                                                                      \
    }
#define ORDER_OPS(t, T)                                                                                                \
    RED(max_##t, T, a[i] = b[i] > a[i] ? b[i] : a[i])                                                                  \
    RED(min_##t, T, a[i] = b[i] < a[i] ? b[i] : a[i])
#define CPROD(T, V)                                                                                                     \
    do {                                                                                                               \
        T re = a[i].x * b[i].x - a[i].y * b[i].y, im = a[i].x * b[i].y + a[i].y * b[i].x;                              \
        a[i] = (V)(re, im);                                                                                             \
    } while (0)

#ifdef GSHMEM_ZE_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
ORDER_OPS(f64, double)
RED(sum_f64, double, a[i] += b[i])
RED(prod_f64, double, a[i] *= b[i])
RED(sum_c64, double2, a[i] += b[i])
RED(prod_c64, double2, CPROD(double, double2))
#else
/* op: 0 fetch, 1 set, 2 swap, 3 compare-swap, 4 add (inc is add 1), 5 and, 6 or, 7 xor; the old value widened to
 * 64 bits in *out. All-devices scope: peers and the host read the word too. */
#define AMO(T, AT)                                                                                                     \
    do {                                                                                                               \
        volatile global AT *w = (volatile global AT *)p;                                                               \
        T old = 0;                                                                                                     \
        switch (op) {                                                                                                  \
        case 0: old = atomic_load_explicit(w, memory_order_seq_cst, memory_scope_all_svm_devices); break;             \
        case 1: atomic_store_explicit(w, v, memory_order_seq_cst, memory_scope_all_svm_devices); break;               \
        case 2: old = atomic_exchange_explicit(w, v, memory_order_seq_cst, memory_scope_all_svm_devices); break;      \
        case 3:                                                                                                        \
            old = c;                                                                                                   \
            atomic_compare_exchange_strong_explicit(w, &old, v, memory_order_seq_cst, memory_order_seq_cst,            \
                                                    memory_scope_all_svm_devices);                                     \
            break;                                                                                                     \
        case 4: old = atomic_fetch_add_explicit(w, v, memory_order_seq_cst, memory_scope_all_svm_devices); break;     \
        case 5: old = atomic_fetch_and_explicit(w, v, memory_order_seq_cst, memory_scope_all_svm_devices); break;     \
        case 6: old = atomic_fetch_or_explicit(w, v, memory_order_seq_cst, memory_scope_all_svm_devices); break;      \
        case 7: old = atomic_fetch_xor_explicit(w, v, memory_order_seq_cst, memory_scope_all_svm_devices); break;     \
        }                                                                                                              \
        *out = old;                                                                                                    \
    } while (0)

kernel void gshmemi_amo32(global uint *p, int op, uint v, uint c, global ulong *out) { AMO(uint, atomic_uint); }
kernel void gshmemi_amo64(global ulong *p, int op, ulong v, ulong c, global ulong *out) { AMO(ulong, atomic_ulong); }

#define UINT_OPS(t, T)                                                                                                 \
    RED(and_##t, T, a[i] = (T)(a[i] & b[i]))                                                                           \
    RED(or_##t, T, a[i] = (T)(a[i] | b[i]))                                                                            \
    RED(xor_##t, T, a[i] = (T)(a[i] ^ b[i]))                                                                           \
    RED(sum_##t, T, a[i] = (T)(a[i] + b[i]))                                                                           \
    RED(prod_##t, T, a[i] = (T)(a[i] * b[i]))
UINT_OPS(u8, uchar)
UINT_OPS(u16, ushort)
UINT_OPS(u32, uint)
UINT_OPS(u64, ulong)
ORDER_OPS(u8, uchar)
ORDER_OPS(u16, ushort)
ORDER_OPS(u32, uint)
ORDER_OPS(u64, ulong)
ORDER_OPS(i8, char)
ORDER_OPS(i16, short)
ORDER_OPS(i32, int)
ORDER_OPS(i64, long)
ORDER_OPS(f32, float)
RED(sum_f32, float, a[i] += b[i])
RED(prod_f32, float, a[i] *= b[i])
RED(sum_c32, float2, a[i] += b[i])
RED(prod_c32, float2, CPROD(float, float2))
#endif
