/* ofi_stage.c - GPU segments the provider did not register (no FI_HMEM), reached through their owners' host memory:
 * puts copied in from messages, gets answered from copies out, copies queued on the GPU so the owner keeps serving. */
#include <sys/mman.h>

#include "gpu/gtl.h"
#include "transport/ofi/ofi_int.h"

int shmemt_ofi_am_nfly;
static int am_pinned, get_pool_pinned;

/* Send buffers of staged gets' answers: from a pool pinned for the GPU driver (a copy out of GPU memory into pinned
 * memory is one DMA; into pageable memory the driver copies through a pinned buffer of its own), else allocated for
 * the one send. Taken and given back under am_lock (am_get and op_completed run in drive). */
#define GET_POOL 64
static struct am_sbuf *get_pool, *get_free[GET_POOL];
static int get_nfree;
static size_t get_pool_bytes;

static struct am_sbuf *get_sbuf_take(void) {
    struct am_sbuf *sb = get_nfree ? get_free[--get_nfree] : malloc(sizeof *sb);
    if (!sb)
        shmemi_fatal("shmem_get (libfabric transport, staged GPU data)", "out of memory for a send buffer");
    sb->d.heap = sb >= get_pool && sb < get_pool + GET_POOL ? SBUF_POOL : SBUF_MALLOC;
    if (sb->d.heap == SBUF_MALLOC)
        sb->mr = shmemt_ofi.mr_local
                     ? shmemt_ofi_lreg(sb, sizeof *sb, FI_SEND, "shmem_get (libfabric transport, staged GPU data)")
                     : NULL;
    return sb;
}

void shmemt_ofi_get_sbuf_put(void *b) { get_free[get_nfree++] = b; }

/* Sends the answer of a staged get (data in sb, copied out of the segment) to PE `to`. */
static void am_get_send(struct ofi_ep *e, struct am_sbuf *sb, int to) {
    struct iovec iov = {.iov_base = &sb->m, .iov_len = sizeof sb->m + sb->m.cond};
    void *desc = sb->mr ? fi_mr_desc(sb->mr) : NULL;
    struct fi_msg msg = {
        .msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = shmemt_ofi.addr[to], .context = &sb->d.fc};
    if (SHMEMI_UNLIKELY(shmemt_ofi.mr_local))
        shmemt_ofi_lcheck(iov.iov_base, iov.iov_len, desc, "shmem_get (libfabric transport, staged GPU data)");
    ssize_t rc;
    unsigned long n = 0;
    struct stall st = {0};
    while ((rc = fi_sendmsg(e->ep, &msg, FI_COMPLETION)) == -FI_EAGAIN) {
        (void)fi_cntr_read(e->cntr); /* progress without taking messages (we hold am_lock) */
        if (++n > 64)
            sched_yield();
        shmemt_ofi_stall_check(&st, "fi_sendmsg (staged get answer)", to, 1);
    }
    if (rc)
        shmemt_ofi_fatal("fi_sendmsg (staged get)", (int)rc);
}

static void am_fly_push(struct ofi_ep *e, struct am_rbuf *b, struct am_sbuf *sb, int to, void *dst, const void *src,
                        size_t len);

/* AM_GET on the owner of a staged GPU segment: the data is copied out into a send buffer of its own, given back when
 * the send completes (this runs under am_lock, where waiting for a buffer of the ring could wait for completions
 * only this thread would take off the queue). Out of GPU memory the copy is queued (see am_fly) and the answer sent
 * when it is done, so the next requests are taken meanwhile. */
void shmemt_ofi_am_get(struct ofi_ep *e, const struct am_msg *m) {
    struct shmemi_seg *sg = shmemt_ofi_am_seg(m->seg);
    if (!sg || m->cond > AM_DATA || m->off + m->cond > sg->map_size || m->from < 0 || m->from >= shmemi_rt.n_pes)
        shmemi_fatal("shmem (libfabric transport)", "malformed get message from PE %d", (int)m->from);
    struct am_sbuf *sb = get_sbuf_take();
    sb->m = (struct am_msg){
        .kind = AM_GOT, .from = (int32_t)shmemi_rt.my_pe, .value = m->value, .cond = m->cond, .token = m->token};
    if (sg->kind == SHMEMI_MEM_DEVICE) {
        am_fly_push(e, NULL, sb, (int)m->from, sb->data, (char *)sg->base + m->off, m->cond);
        return;
    }
    memcpy(sb->data, (char *)sg->base + m->off, m->cond);
    am_get_send(e, sb, (int)m->from);
}

void shmemt_ofi_am_got(const struct am_rbuf *b) {
    if (b->m.cond > AM_DATA)
        shmemi_fatal("shmem (libfabric transport)", "malformed get answer from PE %d", (int)b->m.from);
    memcpy((void *)(uintptr_t)b->m.value, b->data, b->m.cond);
    __atomic_sub_fetch(&((struct am_slot *)(uintptr_t)b->m.token)->left, 1, __ATOMIC_RELEASE);
}

/* Staged data moved by queued GPU copies (am_fly): a put's copy into GPU memory, after which its receive buffer is
 * posted again, and a get's copy out of it, after which the answer is sent. The owner takes the next messages while
 * the GPU copies instead of waiting for each 16 KiB. Copies are queued in order, gets' behind the puts before them;
 * every other message waits for all queued copies first (am_handle), so a flush, a signal or an atomic after puts
 * finds their data in place. Under am_lock. */
#define AM_FLY 64 /* receive buffers held: half of AM_NBUF */
static struct am_fly {
    struct am_rbuf *b;  /* a put's receive buffer, or NULL */
    struct am_sbuf *sb; /* a get's answer, or NULL */
    int to;             /* (the get's asker) */
    void *ticket;
} am_fly[AM_FLY];
static int am_fly_head;

static void am_fly_push(struct ofi_ep *e, struct am_rbuf *b, struct am_sbuf *sb, int to, void *dst, const void *src,
                        size_t len) {
    if (shmemt_ofi_am_nfly == AM_FLY) /* the oldest one first */
        shmemt_ofi_am_fly_reap(e, 2);
    void *t = shmemi_gtl_copy_start(dst, src, len, "shmem (libfabric transport, staged GPU data)");
    am_fly[(am_fly_head + shmemt_ofi_am_nfly++) % AM_FLY] = (struct am_fly){b, sb, to, t};
}

int shmemt_ofi_am_put_gpu(struct ofi_ep *e, struct am_rbuf *b) {
    const struct am_msg *m = &b->m;
    struct shmemi_seg *sg = shmemt_ofi_am_seg(m->seg);
    if (m->kind != AM_PUT || !sg || sg->kind != SHMEMI_MEM_DEVICE || m->token > AM_DATA ||
        m->off + m->token > sg->map_size)
        return 0; /* (malformed ones are reported by am_putsig) */
    am_fly_push(e, b, NULL, 0, (char *)sg->base + m->off, b->data, m->token);
    return 1;
}

/* Finishes the staged copies that are done: wait 0 only those done now, 1 all (waiting), 2 the oldest (waiting).
 * With e NULL (finalize) nothing is posted or sent. */
void shmemt_ofi_am_fly_reap(struct ofi_ep *e, int wait) {
    int reaped = 0;
    while (shmemt_ofi_am_nfly) {
        struct am_fly f = am_fly[am_fly_head];
        if (shmemi_gtl_copy_end(f.ticket, wait != 0, "shmem (libfabric transport, staged GPU data)"))
            break; /* not yet, nor the ones queued after it */
        am_fly_head = (am_fly_head + 1) % AM_FLY;
        shmemt_ofi_am_nfly--;
        if (f.b) {
            reaped = 1;
            int rc = e ? shmemt_ofi_am_post(&shmemt_ofi.ep0, f.b) : 0; /* (every receive buffer is endpoint 0's) */
            if (rc)
                shmemt_ofi_fatal("fi_recvmsg (atomic messages)", rc);
        } else if (e) {
            am_get_send(&shmemt_ofi.ep0, f.sb, f.to);
        } else if (f.sb->d.heap == SBUF_POOL) {
            shmemt_ofi_get_sbuf_put(f.sb);
        } else {
            shmemt_ofi_sbuf_free(f.sb);
        }
        if (wait == 2)
            break;
    }
    if (reaped)
        shmemi_wake_after_traffic();
}

/* a get of GPU data: its copy may queue behind the ones already queued */
int shmemt_ofi_am_get_gpu(const struct am_msg *m) {
    struct shmemi_seg *sg = m->kind == AM_GET ? shmemt_ofi_am_seg(m->seg) : NULL;
    return sg && sg->kind == SHMEMI_MEM_DEVICE;
}

/* ---- GPU segments the provider did not register (no FI_HMEM, or SHMEM_OFI_GPU_REGISTER=0) ----
 * Their owner moves the data with the GPU layer, through host memory: a put travels as messages of up to AM_DATA
 * bytes, sent back to back, that it copies in; a get as requests it answers with the data, AM_WINDOW of them
 * outstanding; an atomic as an atomic message. Messages from one PE are applied in order, and quiet flushes them. */
#define AM_WINDOW 32

void shmemt_ofi_staged_put(struct ofi_ep *e, struct shmemi_seg *s, size_t off, const void *src, size_t len, int pe) {
    for (size_t done = 0; done < len;) {
        size_t n = len - done < shmemt_ofi.am_data ? len - done : shmemt_ofi.am_data;
        struct am_msg m = {.kind = AM_PUT,
                           .seg = (uint8_t)seg_index(s),
                           .from = (int32_t)shmemi_rt.my_pe,
                           .off = off + done,
                           .token = n};
        shmemt_ofi_am_send_putsig(e, pe, &m, (const char *)src + done, n);
        done += n;
    }
    mark_dirty(e, pe);
    __atomic_store_n(&e->amo_pending, 1, __ATOMIC_RELAXED); /* fence: a later write must not overtake these */
}

void shmemt_ofi_staged_get(struct ofi_ep *e, struct shmemi_seg *s, size_t off, void *dst, size_t len, int pe) {
    struct am_slot slot = {0};
    for (size_t done = 0; done < len;) {
        size_t n = len - done < shmemt_ofi.am_data ? len - done : shmemt_ofi.am_data;
        shmemt_ofi_am_wait_for(e, &slot, AM_WINDOW - 1);
        __atomic_add_fetch(&slot.left, 1, __ATOMIC_SEQ_CST);
        struct am_msg m = {.kind = AM_GET,
                           .seg = (uint8_t)seg_index(s),
                           .from = (int32_t)shmemi_rt.my_pe,
                           .off = off + done,
                           .value = (uint64_t)(uintptr_t)((char *)dst + done),
                           .cond = n,
                           .token = (uint64_t)(uintptr_t)&slot};
        shmemt_ofi_am_send(e, pe, &m, 0);
        done += n;
    }
    shmemt_ofi_am_wait(e, &slot);
}

/* Staged GPU data goes through host buffers pinned for the GPU driver where it lets us: the receive buffers (puts
 * are copied from them into GPU memory) and the get answers' send buffers. Unpinned they still work, slower. */
void shmemt_ofi_stage_pin(void) {
    get_pool = shmemt_ofi_pages_alloc(GET_POOL * sizeof *get_pool, &get_pool_bytes);
    struct fid_mr *mr =
        get_pool && shmemt_ofi.mr_local ? shmemt_ofi_lreg(get_pool, get_pool_bytes, FI_SEND, "shmem_init") : NULL;
    for (int k = 0; get_pool && k < GET_POOL; k++) {
        get_pool[k].mr = mr;
        get_free[get_nfree++] = &get_pool[k];
    }
    if (!shmemi_gtl || !shmemi_gtl->host_register)
        return;
    am_pinned = !shmemi_gtl->host_register(shmemt_ofi.am_bufs, shmemt_ofi_am_bufs_bytes);
    get_pool_pinned = get_pool && !shmemi_gtl->host_register(get_pool, get_pool_bytes);
    shmemi_debug("libfabric transport: staging buffers %spinned for the GPU (receive %zu B, get answers %zu B)",
                 am_pinned && get_pool_pinned ? "" : "NOT all ", shmemt_ofi_am_bufs_bytes, get_pool_bytes);
}

void shmemt_ofi_stage_unpin(void) {
    if ((am_pinned && shmemi_gtl->host_unregister(shmemt_ofi.am_bufs)) ||
        (get_pool_pinned && shmemi_gtl->host_unregister(get_pool)))
        shmemi_fatal("shmem_finalize", "the GPU driver (%s) cannot unpin the network's staging buffers",
                     shmemi_gtl->name);
    am_pinned = get_pool_pinned = 0;
    if (get_pool && get_pool[0].mr)
        shmemt_ofi_lclose(get_pool[0].mr);
    if (get_pool)
        munmap(get_pool, get_pool_bytes);
    get_pool = NULL;
    get_nfree = 0;
}
