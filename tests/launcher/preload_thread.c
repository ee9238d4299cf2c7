/* preload_thread.c - an LD_PRELOAD library whose constructor starts a thread before main, with every signal
 * unblocked, as some tools and libraries do: oshrun must still see its children exit and pass signals on (the kernel
 * hands a process-wide signal to a thread that does not block it). */
#include <pthread.h>
#include <unistd.h>

static void *idle(void *arg) {
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

__attribute__((constructor)) static void start_idle_thread(void) {
    pthread_t t;
    if (pthread_create(&t, NULL, idle, NULL) == 0)
        pthread_detach(t);
}
