/* local_proto.h - the wire protocol between oshrun and the local bootstrap (src/bootstrap/local.c); one definition
 * for both sides. Every message is a 16-byte header followed by `len` payload bytes.
 * PE -> oshrun: HELLO {u32 version, i32 rank, i32 size, i32 pid}, ALLGATHER {blob}, ABORT {arg = exit code; message
 * text}, FINALIZE {}, EXIT {as ABORT, from a PE that exits with that non-zero status: the other PEs may end on their
 * own first}.  oshrun -> PE: HELLO_OK {}, ALLGATHER_REPLY {size * blob bytes, rank order}.
 * A barrier is an allgather of 0 bytes. */
#ifndef GSHMEM_LOCAL_PROTO_H
#define GSHMEM_LOCAL_PROTO_H

#include <stdint.h>

#define BOOT_PROTO_VERSION 2u /* 2: EXIT */
enum {
    BOOT_HELLO = 1,
    BOOT_ALLGATHER = 2,
    BOOT_ABORT = 3,
    BOOT_FINALIZE = 4,
    BOOT_HELLO_OK = 5,
    BOOT_ALLGATHER_REPLY = 6,
    BOOT_EXIT = 7
};
struct boot_hdr {
    uint32_t type;
    uint32_t arg;
    uint64_t len;
};
#define BOOT_MAX_BLOB (64u << 20)   /* one PE's contribution to one allgather */
#define BOOT_MAX_REPLY (1ull << 31) /* everything gathered in one allgather */
#define BOOT_MAX_ABORT_MSG 4096

#endif
