/* fuzz_size.c - libFuzzer target for shmemi_parse_size, checked against a reference model written separately (128-bit
 * arithmetic, the grammar spelled out): both must accept the same strings and give the same value. */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"

/* digits, then at most one of k K m M g G t T, then at most one b or B, then the end; the value fits a size_t */
static int ref_size(const char *s, size_t *out) {
    unsigned __int128 v = 0, lim = (unsigned __int128)SIZE_MAX;
    size_t i = 0;
    int big = 0;
    if (!isdigit((unsigned char)s[0]))
        return -1;
    for (; isdigit((unsigned char)s[i]); i++) {
        if (!big)
            v = v * 10 + (unsigned)(s[i] - '0');
        if (v > lim)
            big = 1;
    }
    static const char suffix[] = "kKmMgGtT";
    const char *at = s[i] ? strchr(suffix, s[i]) : NULL;
    unsigned shift = 0;
    if (at) {
        shift = 10u * (unsigned)(1 + (at - suffix) / 2);
        i++;
    }
    if (s[i] == 'b' || s[i] == 'B')
        i++;
    if (s[i] != '\0' || big)
        return -1;
    v <<= shift;
    if (v > lim)
        return -1;
    *out = (size_t)v;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len) {
    char *s = malloc(len + 1);
    if (!s)
        return 0;
    memcpy(s, data, len);
    s[len] = '\0';
    size_t got = 12345, want = 12345;
    int rc = shmemi_parse_size(s, &got), ref = ref_size(s, &want);
    if (rc != ref || (rc == 0 && got != want) || (rc != 0 && got != 12345))
        abort(); /* the parser and the model disagree (or a failure wrote the output) */
    free(s);
    return 0;
}
