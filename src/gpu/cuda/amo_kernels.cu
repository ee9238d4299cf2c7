/* amo_kernels.cu - the device kernels the host runtime launches: one OpenSHMEM atomic on a word of device memory
 * (own or IPC-mapped). Built to PTX at build time and embedded in the library, loaded through the driver at run
 * time, so the library links against no CUDA library. Op codes are gtl_cuda.c's GTL_CUDA_OP_*. */

template <typename T> __device__ T do_amo(T *p, int op, T v, T c) {
    switch (op) {
    case 0: return *(volatile T *)p;                          /* fetch */
    case 1: atomicExch(p, v); return 0;                       /* set */
    case 2: return atomicExch(p, v);                          /* swap */
    case 3: return atomicCAS(p, c, v);                        /* compare-swap */
    case 4: return atomicAdd(p, v);                           /* add (inc is add 1) */
    case 5: return atomicAnd(p, v);
    case 6: return atomicOr(p, v);
    case 7: return atomicXor(p, v);
    }
    return 0;
}

extern "C" __global__ void gshmemi_amo32(unsigned int *p, int op, unsigned int v, unsigned int c, unsigned long long *out) {
    *out = do_amo<unsigned int>(p, op, v, c);
    __threadfence_system();
}

extern "C" __global__ void gshmemi_amo64(unsigned long long *p, int op, unsigned long long v, unsigned long long c,
                                         unsigned long long *out) {
    *out = do_amo<unsigned long long>(p, op, v, c);
    __threadfence_system();
}
