/* oshrun.c - gshmem's launcher: starts N PEs of a program on this machine, serves the local bootstrap
 * (hello, allgather/barrier, abort, finalize) over one socketpair per PE, and tears the whole job down when a PE fails.
 * With --hostfile, or -H naming other machines, it hands the job to mpirun instead (the PEs then use PMIx). */
#include <ctype.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* OSHRUN_VERSION comes from project(VERSION) in the top CMakeLists.txt */
#ifndef OSHRUN_VERSION
#define OSHRUN_VERSION "unknown"
#endif

#include "bootstrap/local_proto.h"
#include "topo/topo.h"

#define KILL_GRACE_MS 2000 /* SIGTERM, then SIGKILL this much later */
/* When a PE ends on its own with a failure (it exits non-zero, or its exit hook says so, or it is killed), the others
 * get this long to end on their own before the SIGTERM: a PE that reaches its own end a moment later (its message why
 * it cannot run, its exit flushing what it printed) is then heard, not killed mid-way. PEs that asked oshrun to end
 * the job only wait to be killed: once every PE left is one of them, the SIGTERM goes at once. shmem_global_exit and
 * the library's fatal errors (ABORT) end the job at once, as before. */
#define SETTLE_MS 1000
#define MAX_NPES 4096
#define LINE_MAX_TAG 4096 /* a tagged line longer than this is split */
#define MAX_FWD 256       /* options kept for mpirun */
#define MAX_NOTES 32      /* --verbose notes held until we know whether mpirun takes over */

/* a reply buffer shared by every PE it is queued to */
struct obuf {
    size_t refs;
    size_t len;
    char data[];
};

struct outmsg {
    struct outmsg *next;
    struct boot_hdr hdr;
    struct obuf *body; /* may be NULL */
    size_t off;        /* bytes of hdr + body already written */
};

struct tagstream {
    int fd;  /* read end of the PE's stdout or stderr pipe, -1 once closed */
    int out; /* 1 or 2 */
    size_t len;
    char buf[LINE_MAX_TAG];
};

struct pe {
    int rank;
    pid_t pid;
    int fd; /* our end of the boot socket, -1 once closed */
    int hello, finalized, reaped;
    int aborted; /* sent ABORT or EXIT: it waits for oshrun to end it */
    int status;  /* wait status once reaped */
    struct timespec reap_time;
    /* message being read */
    struct boot_hdr hdr;
    size_t hdr_got;
    char *body;
    size_t body_got;
    /* allgather contribution of the current round */
    int posted;
    char *blob;
    size_t bloblen;
    struct outmsg *outq, *outq_tail;
    struct tagstream tag[2];
};

static struct {
    int npes;
    int tag_output;
    int verbose;
    double timeout_s;
    char **argv; /* program and its arguments */
    /* --hostfile, or -H with another machine: the job goes to mpirun with these options */
    int remote;
    const char *fwd[MAX_FWD];
    int nfwd;
    int hostfile;
    char timeout_whole[24]; /* mpirun's --timeout takes whole seconds */
    long host_slots;        /* PEs the -H lists hold (1 per host without ":N"), for --oversubscribe */
    int oversubscribe;      /* given by the user */
    int bind;               /* --bind-to: -1 not given (core when 2 <= PEs <= CPUs), 0 none, 1 core, 2 numa */
    int map;                /* --map-by: 0 core (PE r on the r-th CPU), 1 numa (round robin), 2 gpu (round robin) */
    cpu_set_t *bind_set;    /* PE r's cores when placing (of oshrun's own CPU set), else NULL */
    int bind_apply;         /* 1: bind to bind_set; 0: only tell the PE (HWLOC_XMLFILE: another node's topology) */
    int ncpus;              /* oshrun's CPUs */
    char *notes[MAX_NOTES]; /* "ignoring ..." notes: true only if oshrun starts the PEs itself */
    int nnotes;
    char jobid[64];
    struct pe *pes;
    pid_t pgid;
    int sigfd;
    int relay[2];     /* the signals' relay pipe (see relay_signal) */
    sigset_t sigmask; /* the signals we take: blocked here, read from sigfd or the relay */
    sigset_t oldmask;
    int nreaped;
    int nposted; /* PEs that contributed to the current allgather round */
    /* teardown */
    int tearing_down;
    int exit_code;
    int term_sent, kill_sent;
    long long term_at_ms; /* a PE failed: SIGTERM to the others then (SETTLE_MS) */
    long long kill_at_ms;
    long long timeout_at_ms;
    int forwarded_sig; /* last signal forwarded to the PEs, 0 if none */
    /* stdin forwarding to PE 0 when stdin is our terminal */
    int stdin_fwd;  /* 1 while we read fd 0 */
    int stdin_pipe; /* write end towards PE 0, -1 if none */
} job = {.sigfd = -1,
         .relay = {-1, -1},
         .stdin_pipe = -1,
         .timeout_at_ms = -1,
         .term_at_ms = -1,
         .kill_at_ms = -1,
         .bind = -1};

static const int fwd_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

static long long now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void write_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN) {
                struct pollfd pf = {.fd = fd, .events = POLLOUT};
                poll(&pf, 1, 1000);
                continue;
            }
            return; /* EPIPE etc.: nobody is listening, drop it */
        }
        p += w;
        n -= (size_t)w;
    }
}

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...) {
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n > sizeof line - 2)
        n = sizeof line - 2;
    line[n++] = '\n';
    write_all(2, line, (size_t)n); /* one write: lines from oshrun and the PEs do not interleave mid-line */
}

static void usage(FILE *f) {
    fprintf(f, "Usage: oshrun [options] [--] program [args...]\n"
               "Starts the PEs of an OpenSHMEM program (gshmem) on this machine.\n"
               "\n"
               "  -np N, -n N, --np N, -N N  number of PEs (default 1)\n"
               "  --tag-output               prefix every line of output with \"[PE n] \"\n"
               "  -x NAME[=VALUE]            export NAME (set to VALUE) to the PEs; may be repeated\n"
               "  --timeout SECONDS          kill the job after SECONDS and exit with status 124\n"
               "  -v, --verbose              say what oshrun does (ignored options, cleanup)\n"
               "  -h, --help                 show this help\n"
               "  -V, --version              show the version\n"
               "  --hostfile FILE            run on the machines FILE lists: hands the job to mpirun\n"
               "  -H, --host H[,H...]        run on these machines; other than this one: hands the job to mpirun\n"
               "  --map-by core|numa|gpu     place PE r on the r-th CPU oshrun may use (core, the default), on the\n"
               "                             NUMA nodes in turn (numa), or near the GPUs in turn (gpu: PE r near\n"
               "                             GPU r mod GPUs, so it takes that GPU), from the node's topology (hwloc)\n"
               "  --bind-to core|numa|none   bind each PE to its CPU (core: the default when 2 <= PEs <= CPUs, as\n"
               "                             Open MPI does), to the cores of its NUMA node or GPU (numa), or not\n"
               "  --                         end of options\n"
               "Accepted and ignored when oshrun starts the PEs itself, passed on to mpirun otherwise:\n"
               "--oversubscribe, --allow-run-as-root, --mca K V.\n"
               "Exit status: 0 if every PE exited 0; the status of shmem_global_exit; else the failing PE's status\n"
               "or 128+signal; 124 on --timeout; 126/127 if the program cannot be run; 2 on a usage error.\n");
}

static void __attribute__((noreturn, format(printf, 1, 2))) usage_error(const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "oshrun: %s\nTry 'oshrun --help' for more information.\n", msg);
    exit(2);
}

/* ---- option parsing ---- */

/* A hostfile that cannot be used stops here in one line, before mpirun is looked for: Open MPI 4.1's mpirun answers
 * a missing file with a boxed message and an "internal error" of ORTE, an empty one with "No nodes are available",
 * and where mpirun is absent the user would hear only about that. */
static void check_hostfile(const char *name, const char *path) {
    FILE *f = fopen(path, "r");
    if (!f)
        usage_error("--%s %s: cannot read it: %s (it lists the machines mpirun runs the PEs on)", name, path,
                    strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) || S_ISDIR(st.st_mode)) {
        fclose(f);
        usage_error("--%s %s: a directory, not a file listing machines (one per line: host [slots=N])", name, path);
    }
    char line[1024];
    int hosts = 0;
    while (!hosts && fgets(line, sizeof line, f)) {
        char *p = line + strspn(line, " \t\r\n");
        hosts = *p && *p != '#';
    }
    fclose(f);
    if (!hosts)
        usage_error("--%s %s: the file names no machine (one per line: host [slots=N]; # starts a comment)", name,
                    path);
}

static int parse_np(const char *s) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > MAX_NPES)
        usage_error("invalid number of PEs '%s': expected an integer from 1 to %d", s, MAX_NPES);
    return (int)v;
}

static int host_is_local(const char *h) {
    char self[256] = "";
    gethostname(self, sizeof self - 1);
    size_t n = strcspn(h, ":"); /* "host:slots" */
    if (n == 0)
        return 0;
    if ((n == 9 && !strncmp(h, "localhost", 9)) || (n == 9 && !strncmp(h, "127.0.0.1", 9)))
        return 1;
    size_t selfshort = strcspn(self, "."), hshort = strcspn(h, ".:");
    return (n == strlen(self) && !strncmp(h, self, n)) || (hshort == selfshort && !strncmp(h, self, hshort));
}

/* Returns 1 if every host of "h1[:n],h2[:n],..." is this machine; adds the slots the list offers to job.host_slots. */
static int hosts_are_local(const char *list) {
    char *copy = strdup(list), *save = NULL;
    int local = 1;
    if (!copy)
        usage_error("out of memory");
    for (char *h = strtok_r(copy, ",", &save); h; h = strtok_r(NULL, ",", &save)) {
        local &= host_is_local(h);
        const char *c = strchr(h, ':');
        long n = c ? strtol(c + 1, NULL, 10) : 1;
        job.host_slots += n > 0 ? n : 1;
    }
    free(copy);
    return local;
}

static void fwd(const char *a, const char *b) {
    if (job.nfwd + 2 > MAX_FWD)
        usage_error("too many options");
    job.fwd[job.nfwd++] = a;
    if (b)
        job.fwd[job.nfwd++] = b;
}

static void later_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void later_note(const char *fmt, ...) {
    char *m = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&m, fmt, ap);
    va_end(ap);
    if (n >= 0 && job.nnotes < MAX_NOTES)
        job.notes[job.nnotes++] = m;
    else
        free(m);
}

static void parse_args(int argc, char **argv) {
    job.npes = 1;
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (a[0] != '-' || a[1] == '\0')
            break; /* the program */
        /* mpirun accepts both -opt and --opt; so do we.  "--opt=value" gives the value inline. */
        const char *name = a + 1 + (a[1] == '-');
        char namebuf[64];
        const char *val = NULL;
        const char *eq = strchr(name, '=');
        if (a[1] == '-' && eq && (size_t)(eq - name) < sizeof namebuf) {
            memcpy(namebuf, name, (size_t)(eq - name));
            namebuf[eq - name] = '\0';
            name = namebuf;
            val = eq + 1;
        }
#define TAKE_VALUE()                                                                                                   \
    do {                                                                                                               \
        if (!val) {                                                                                                    \
            if (i + 1 >= argc)                                                                                         \
                usage_error("option '%s' needs a value", a);                                                           \
            val = argv[++i];                                                                                           \
        }                                                                                                              \
    } while (0)
        if (!strcmp(name, "np") || !strcmp(name, "n") || !strcmp(name, "N") || !strcmp(name, "c")) {
            TAKE_VALUE();
            job.npes = parse_np(val);
        } else if (!strcmp(name, "tag-output")) {
            job.tag_output = 1;
            fwd("--tag-output", NULL);
        } else if (!strcmp(name, "x")) {
            TAKE_VALUE();
            fwd("-x", val);
            const char *e = strchr(val, '=');
            if (e == val || val[0] == '\0')
                usage_error("-x needs NAME or NAME=VALUE, got '%s'", val);
            if (e) {
                char *n = strndup(val, (size_t)(e - val));
                setenv(n, e + 1, 1);
                free(n);
            } else {
                /* the PEs inherit our environment, so exporting a set variable is already done */
                later_note("oshrun: -x %s: the PEs inherit oshrun's environment%s", val,
                           "; nothing more to do (unset variables stay unset)");
            }
        } else if (!strcmp(name, "timeout")) {
            TAKE_VALUE();
            char *end;
            double t = strtod(val, &end);
            if (end == val || *end || !(t > 0) || t > 1e9)
                usage_error("invalid --timeout '%s': expected a positive number of seconds", val);
            job.timeout_s = t;
            long long whole = (long long)t;
            snprintf(job.timeout_whole, sizeof job.timeout_whole, "%lld", whole + (t > (double)whole));
            fwd("--timeout", job.timeout_whole);
        } else if (!strcmp(name, "v") || !strcmp(name, "verbose")) {
            job.verbose = 1;
        } else if (!strcmp(name, "h") || !strcmp(name, "help")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(name, "V") || !strcmp(name, "version")) {
            printf("oshrun (gshmem) %s, bootstrap protocol %u\n", OSHRUN_VERSION, BOOT_PROTO_VERSION);
            exit(0);
        } else if (!strcmp(name, "oversubscribe") || !strcmp(name, "allow-run-as-root")) {
            job.oversubscribe |= name[0] == 'o';
            fwd(name[0] == 'o' ? "--oversubscribe" : "--allow-run-as-root", NULL);
            later_note("oshrun: ignoring %s (PEs always run on this machine)", a);
        } else if (!strcmp(name, "bind-to")) {
            TAKE_VALUE();
            fwd("--bind-to", val);
            if (!strcmp(val, "none"))
                job.bind = 0;
            else if (!strcmp(val, "core") || !strcmp(val, "hwthread") || !strcmp(val, "cpu"))
                job.bind = 1;
            else if (!strcmp(val, "numa") || !strcmp(val, "socket") || !strcmp(val, "package"))
                job.bind = 2;
            else
                usage_error("--bind-to %s: expected core, numa or none", val);
        } else if (!strcmp(name, "map-by")) {
            TAKE_VALUE();
            fwd("--map-by", val);
            char m[32];
            snprintf(m, sizeof m, "%s", val);
            m[strcspn(m, ":")] = '\0'; /* (mpirun's modifiers, e.g. core:PE=2, are not ours) */
            if (!strcasecmp(m, "core") || !strcasecmp(m, "slot") || !strcasecmp(m, "hwthread"))
                job.map = 0;
            else if (!strcasecmp(m, "numa") || !strcasecmp(m, "socket") || !strcasecmp(m, "package"))
                job.map = 1;
            else if (!strcasecmp(m, "gpu"))
                job.map = 2;
            else
                usage_error("--map-by %s: expected core, numa or gpu", val);
        } else if (!strcmp(name, "mca")) {
            if (val || i + 2 >= argc)
                usage_error("option '%s' needs two values (--mca KEY VALUE)", a);
            fwd("--mca", argv[i + 1]);
            fwd(argv[i + 2], NULL);
            later_note("oshrun: ignoring %s %s %s (Open MPI setting)", a, argv[i + 1], argv[i + 2]);
            i += 2;
        } else if (!strcmp(name, "H") || !strcmp(name, "host")) {
            TAKE_VALUE();
            if (!hosts_are_local(val))
                job.remote = 1;
            fwd("--host", val);
            later_note("oshrun: ignoring %s %s (this machine)", a, val);
        } else if (!strcmp(name, "hostfile") || !strcmp(name, "machinefile")) {
            TAKE_VALUE();
            check_hostfile(name, val);
            job.remote = job.hostfile = 1; /* the file is mpirun's to read */
            fwd("--hostfile", val);
        } else {
            usage_error("unknown option '%s'", a);
        }
#undef TAKE_VALUE
    }
    if (i >= argc)
        usage_error("no program given");
    job.argv = argv + i;
    for (int k = 0; k < job.nnotes; k++) {
        if (job.verbose && !job.remote)
            note("%s", job.notes[k]);
        free(job.notes[k]);
    }
}

/* ---- other machines: mpirun starts the PEs, which find each other through PMIx ---- */

extern char **environ;

/* whether the user's options already hold -x NAME or -x NAME=VALUE for the NAME of length len at name */
static int exported(const char *name, size_t len) {
    for (int k = 0; k + 1 < job.nfwd; k++)
        if (!strcmp(job.fwd[k], "-x") && !strncmp(job.fwd[k + 1], name, len) &&
            (job.fwd[k + 1][len] == '\0' || job.fwd[k + 1][len] == '='))
            return 1;
    return 0;
}

static void __attribute__((noreturn)) exec_mpirun(void) {
    size_t nargs = 0, nenv = 0, nprog = 0;
    for (char **e = environ; *e; e++)
        nenv++;
    while (job.argv[nprog])
        nprog++;
    const char **av = calloc(8 + (size_t)job.nfwd + 2 * nenv + nprog, sizeof *av);
    char np[16];
    if (!av) {
        note("oshrun: out of memory");
        exit(1);
    }
    snprintf(np, sizeof np, "%d", job.npes);
    av[nargs++] = "mpirun";
    av[nargs++] = "-np";
    av[nargs++] = np;
    for (int k = 0; k < job.nfwd; k++)
        av[nargs++] = job.fwd[k];
    /* mpirun gives each -H host one slot unless it says ":N"; oshrun has never limited PEs to cores */
    if (!job.oversubscribe && job.host_slots > 0 && job.npes > job.host_slots)
        av[nargs++] = "--oversubscribe";
    /* mpirun copies only what -x names to other machines: gshmem's settings must reach every PE */
    for (char **e = environ; *e; e++) {
        size_t len = strcspn(*e, "=");
        if (strncmp(*e, "SHMEM_", 6) || !(*e)[len] || exported(*e, len))
            continue;
        char *name = strndup(*e, len);
        if (!name)
            continue;
        av[nargs++] = "-x";
        av[nargs++] = name;
    }
    for (size_t k = 0; k < nprog; k++)
        av[nargs++] = job.argv[k];
    av[nargs] = NULL;
    /* oshrun's own bootstrap variables (oshrun inside oshrun) would make the PEs look for an oshrun */
    unsetenv("GSHMEM_BOOT_FD");
    unsetenv("GSHMEM_RANK");
    unsetenv("GSHMEM_SIZE");
    unsetenv("GSHMEM_JOBID");
    if (job.verbose) {
        char line[4096];
        size_t off = (size_t)snprintf(line, sizeof line, "oshrun: handing the job to mpirun:");
        for (size_t k = 0; av[k] && off < sizeof line; k++)
            off += (size_t)snprintf(line + off, sizeof line - off, " %s", av[k]);
        note("%s", line);
    }
    fflush(NULL);
    execvp("mpirun", (char **)av);
    int e = errno;
    if (e == ENOENT)
        note("oshrun: %s hands the job to mpirun, but mpirun was not found in PATH; install a PMIx launcher "
             "(Debian: apt-get install openmpi-bin), or start the program with prterun or srun --mpi=pmix",
             job.hostfile ? "--hostfile" : "-H with another machine");
    else
        note("oshrun: cannot run mpirun: %s", strerror(e));
    exit(e == ENOENT ? 127 : 126);
}

/* ---- programs built against another OpenSHMEM ---- */

/* Such a program does not look for our bootstrap variables: each PE would start as PE 0 of 1 under its own library
 * (Open MPI's then crashes in shmem_finalize). Its ELF NEEDED entries name the library; only those of the program
 * itself are read (no library it loads), and a program that needs libgshmem too is left alone. */
static const struct {
    const char *soname; /* prefix of the NEEDED entry */
    const char *who;
    const char *instead;
} foreign_libs[] = {
    {"liboshmem.so", "Open MPI's OSHMEM", "start it with Open MPI's oshrun or mpirun"},
    {"libsma.so", "Sandia OpenSHMEM", "start it with SOS's oshrun (Hydra's mpiexec) or its PMI launcher"},
    {"libnvshmem_host.so", "NVSHMEM", "start it with nvshmrun or mpirun"},
};

static int read_at(int fd, void *buf, size_t len, uint64_t off) {
    return off <= (uint64_t)INT64_MAX && pread(fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

/* The path execvp would run for prog, into out; 0 if found. */
static int program_path(const char *prog, char *out, size_t outlen) {
    if (strchr(prog, '/'))
        return snprintf(out, outlen, "%s", prog) < (int)outlen ? 0 : -1;
    const char *path = getenv("PATH");
    for (const char *d = path ? path : "/usr/bin:/bin"; d;) {
        const char *end = strchr(d, ':');
        int dl = end ? (int)(end - d) : (int)strlen(d);
        if (snprintf(out, outlen, "%.*s%s%s", dl, d, dl ? "/" : "", prog) < (int)outlen && access(out, X_OK) == 0)
            return 0;
        d = end ? end + 1 : NULL;
    }
    return -1;
}

/* The foreign_libs index of an OpenSHMEM library the program needs, with its NEEDED name in soname; -1 if none. */
static int foreign_openshmem(const char *prog, char *soname, size_t sonamelen) {
    char path[PATH_MAX];
    if (program_path(prog, path, sizeof path))
        return -1; /* the launch reports it */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int found = -1, gshmem = 0;
    Elf64_Ehdr eh;
    Elf64_Phdr ph[64];
    if (read_at(fd, &eh, sizeof eh, 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 || eh.e_phnum > 64 ||
        read_at(fd, ph, eh.e_phnum * sizeof(Elf64_Phdr), eh.e_phoff))
        goto out;
    const Elf64_Phdr *dyn = NULL;
    for (int i = 0; i < eh.e_phnum; i++)
        if (ph[i].p_type == PT_DYNAMIC)
            dyn = &ph[i];
    if (!dyn || dyn->p_filesz > (1u << 20))
        goto out;
    size_t nd = dyn->p_filesz / sizeof(Elf64_Dyn);
    Elf64_Dyn *d = malloc(nd * sizeof *d + 1);
    if (!d || read_at(fd, d, nd * sizeof *d, dyn->p_offset)) {
        free(d);
        goto out;
    }
    uint64_t strtab = 0, stroff = 0;
    for (size_t i = 0; i < nd && d[i].d_tag != DT_NULL; i++)
        if (d[i].d_tag == DT_STRTAB)
            strtab = d[i].d_un.d_ptr;
    /* the string table is addressed in memory: its place in the file is that of the segment loading it */
    int mapped = 0;
    for (int i = 0; i < eh.e_phnum && !mapped; i++)
        if (ph[i].p_type == PT_LOAD && strtab >= ph[i].p_vaddr && strtab < ph[i].p_vaddr + ph[i].p_filesz) {
            stroff = strtab - ph[i].p_vaddr + ph[i].p_offset;
            mapped = 1;
        }
    for (size_t i = 0; mapped && i < nd && d[i].d_tag != DT_NULL; i++) {
        char name[256];
        if (d[i].d_tag != DT_NEEDED)
            continue;
        ssize_t n = pread(fd, name, sizeof name - 1, (off_t)(stroff + d[i].d_un.d_val));
        if (n <= 0)
            continue;
        name[n] = 0;
        if (!strncmp(name, "libgshmem.so", 12))
            gshmem = 1;
        for (size_t k = 0; k < sizeof foreign_libs / sizeof foreign_libs[0]; k++)
            if (found < 0 && !strncmp(name, foreign_libs[k].soname, strlen(foreign_libs[k].soname))) {
                found = (int)k;
                snprintf(soname, sonamelen, "%s", name);
            }
    }
    free(d);
out:
    close(fd);
    return gshmem ? -1 : found;
}

/* ---- cleanup of /dev/shm segments the library left behind (a PE killed during init) ---- */

/* libfabric's shm provider names its regions "<pid>:<n>:<n>" and removes them when the endpoint is closed: a PE that
 * ends the job, or is killed, leaves them (16 MiB each). Once the PE is reaped, those with its pid that were created
 * before it ended are its own (a later process given the same pid would have made its files after). */
static void cleanup_fi_shm(int fd, const char *name) {
    char *end;
    long pid = strtol(name, &end, 10);
    if (end == name || *end != ':' || pid <= 0 || !isdigit((unsigned char)end[1]) ||
        strspn(end + 1, "0123456789:") != strlen(end + 1))
        return;
    for (int r = 0; r < job.npes; r++) {
        struct pe *p = &job.pes[r];
        struct stat st;
        if (p->pid != pid || !p->reaped)
            continue;
        if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
            st.st_ctim.tv_sec > p->reap_time.tv_sec ||
            (st.st_ctim.tv_sec == p->reap_time.tv_sec && st.st_ctim.tv_nsec > p->reap_time.tv_nsec))
            return;
        if (unlinkat(fd, name, 0) == 0 && job.verbose)
            note("oshrun: removed /dev/shm/%s, left by PE %d's libfabric shm provider", name, r);
        return;
    }
}

static void cleanup_shm(void) {
    char p1[128], p2[128];
    int n1 = snprintf(p1, sizeof p1, "gshmem-%s-", job.jobid);
    int n2 = snprintf(p2, sizeof p2, "sem.gshmem-%s-", job.jobid);
    DIR *d = opendir("/dev/shm");
    if (!d)
        return;
    int fd = dirfd(d), removed = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, p1, (size_t)n1) || !strncmp(e->d_name, p2, (size_t)n2)) {
            if (unlinkat(fd, e->d_name, 0) == 0)
                removed++;
            if (job.verbose)
                note("oshrun: removed leftover /dev/shm/%s", e->d_name);
        } else if (isdigit((unsigned char)e->d_name[0])) {
            cleanup_fi_shm(fd, e->d_name);
        }
    closedir(d);
    (void)removed;
}

/* ---- teardown ---- */

static void signal_group(int sig) {
    if (job.pgid > 0)
        kill(-job.pgid, sig);
    /* a PE that moved itself to another group still gets it, but only once: a second copy of a caught signal
     * can arrive while its handler runs and run the handler twice */
    for (int r = 0; r < job.npes; r++)
        if (job.pes[r].pid > 0 && !job.pes[r].reaped && (job.pgid <= 0 || getpgid(job.pes[r].pid) != job.pgid))
            kill(job.pes[r].pid, sig);
}

static void terminate_pes(void) {
    if (job.term_sent || job.nreaped == job.npes)
        return;
    signal_group(SIGTERM);
    job.term_sent = 1;
    job.kill_at_ms = now_ms() + KILL_GRACE_MS;
}

/* Starts tearing the job down, the SIGTERM after settle_ms; the first caller decides the exit code and the message. */
static void end_job(int settle_ms, int code, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));
static void end_job(int settle_ms, int code, const char *fmt, va_list ap) {
    if (job.tearing_down)
        return;
    job.tearing_down = 1;
    job.exit_code = code;
    if (fmt) {
        char msg[BOOT_MAX_ABORT_MSG + 256];
        vsnprintf(msg, sizeof msg, fmt, ap);
        note("oshrun: %s", msg);
    }
    if (settle_ms > 0)
        job.term_at_ms = now_ms() + settle_ms;
    else
        terminate_pes();
}

/* oshrun's own reasons (--timeout, protocol errors): the PEs are stopped at once */
static void fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    end_job(0, code, fmt, ap);
    va_end(ap);
}

/* A PE failed (exited, was killed, or asked oshrun to end the job): the others may settle first (SETTLE_MS) */
static void pe_failed(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void pe_failed(int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    end_job(SETTLE_MS, code, fmt, ap);
    va_end(ap);
}

/* The settling ends when its time is up, or when every PE still running only waits to be killed */
static void check_settled(void) {
    if (!job.tearing_down || job.term_sent || job.term_at_ms < 0)
        return;
    int waiting = 1;
    for (int r = 0; r < job.npes && waiting; r++)
        if (!job.pes[r].reaped && !job.pes[r].aborted)
            waiting = 0;
    if (waiting || now_ms() >= job.term_at_ms)
        terminate_pes();
}

static const char *pe_desc(struct pe *p, char *buf, size_t n) {
    snprintf(buf, n, "PE %d (pid %d)", p->rank, (int)p->pid);
    return buf;
}

/* ---- bootstrap server ---- */

static void queue_reply(struct pe *p, uint32_t type, struct obuf *body) {
    if (p->fd < 0)
        return;
    struct outmsg *m = calloc(1, sizeof *m);
    if (!m) {
        fail(1, "out of memory");
        return;
    }
    m->hdr.type = type;
    m->hdr.len = body ? body->len : 0;
    m->body = body;
    if (body)
        body->refs++;
    if (p->outq_tail)
        p->outq_tail->next = m;
    else
        p->outq = m;
    p->outq_tail = m;
}

static void put_obuf(struct obuf *b) {
    if (b && --b->refs == 0)
        free(b);
}

static void close_pe_socket(struct pe *p) {
    if (p->fd >= 0)
        close(p->fd);
    p->fd = -1;
    while (p->outq) {
        struct outmsg *m = p->outq;
        p->outq = m->next;
        put_obuf(m->body);
        free(m);
    }
    p->outq_tail = NULL;
    free(p->body);
    p->body = NULL;
}

/* A PE that left (exited or finalized) without joining the current allgather round blocks it forever: fail now
 * rather than hang. */
static void check_stuck(void) {
    if (job.tearing_down || job.nposted == 0)
        return;
    int waiter = -1;
    for (int r = 0; r < job.npes && waiter < 0; r++)
        if (job.pes[r].posted)
            waiter = r;
    for (int r = 0; r < job.npes; r++) {
        struct pe *p = &job.pes[r];
        if (p->posted)
            continue;
        char d[64];
        if (p->finalized) {
            pe_failed(1,
                      "%s called shmem_finalize while PE %d waits in a start-up exchange or barrier of the bootstrap; "
                      "terminating the job",
                      pe_desc(p, d, sizeof d), waiter);
            return;
        }
        if (p->reaped) {
            pe_failed(1,
                      "%s exited without joining the start-up exchange PE %d waits in (did it call shmem_init?); "
                      "terminating the job",
                      pe_desc(p, d, sizeof d), waiter);
            return;
        }
    }
}

static void complete_allgather(void) {
    size_t len = job.pes[0].bloblen;
    for (int r = 1; r < job.npes; r++)
        if (job.pes[r].bloblen != len) {
            fail(1, "bootstrap allgather: PE 0 sent %zu bytes but PE %d sent %zu; terminating the job", len, r,
                 job.pes[r].bloblen);
            return;
        }
    if ((unsigned long long)len * (unsigned)job.npes > BOOT_MAX_REPLY) {
        fail(1, "bootstrap allgather of %zu bytes per PE is too large; terminating the job", len);
        return;
    }
    struct obuf *b = malloc(sizeof *b + len * (size_t)job.npes);
    if (!b) {
        fail(1, "out of memory in bootstrap allgather");
        return;
    }
    b->refs = 1;
    b->len = len * (size_t)job.npes;
    for (int r = 0; r < job.npes; r++) {
        struct pe *p = &job.pes[r];
        if (len)
            memcpy(b->data + (size_t)r * len, p->blob, len);
        free(p->blob);
        p->blob = NULL;
        p->bloblen = 0;
        p->posted = 0;
    }
    job.nposted = 0;
    for (int r = 0; r < job.npes; r++)
        queue_reply(&job.pes[r], BOOT_ALLGATHER_REPLY, b);
    put_obuf(b);
}

static void handle_msg(struct pe *p) {
    char d[64];
    switch (p->hdr.type) {
    case BOOT_HELLO: {
        int32_t v[4] = {0, -1, -1, 0};
        if (p->hdr.len == sizeof v)
            memcpy(v, p->body, sizeof v);
        if (p->hdr.len != sizeof v || (uint32_t)v[0] != BOOT_PROTO_VERSION) {
            fail(1,
                 "%s speaks bootstrap protocol %u, oshrun speaks %u: the program and oshrun come from different "
                 "gshmem versions; terminating the job",
                 pe_desc(p, d, sizeof d), (unsigned)v[0], BOOT_PROTO_VERSION);
            return;
        }
        if (v[1] != p->rank || v[2] != job.npes) {
            fail(1,
                 "%s says it is rank %d of %d, but oshrun started it as rank %d of %d (GSHMEM_RANK/GSHMEM_SIZE "
                 "changed?); terminating the job",
                 pe_desc(p, d, sizeof d), v[1], v[2], p->rank, job.npes);
            return;
        }
        if (p->hello) {
            fail(1, "%s started the bootstrap twice; terminating the job", pe_desc(p, d, sizeof d));
            return;
        }
        p->hello = 1;
        queue_reply(p, BOOT_HELLO_OK, NULL);
        break;
    }
    case BOOT_ALLGATHER:
        if (!p->hello || p->finalized || p->posted) {
            fail(1, "protocol error: %s sent an allgather %s; terminating the job", pe_desc(p, d, sizeof d),
                 !p->hello      ? "before hello"
                 : p->finalized ? "after finalize"
                                : "twice");
            return;
        }
        p->posted = 1;
        p->blob = p->body;
        p->bloblen = p->hdr.len;
        p->body = NULL;
        if (++job.nposted == job.npes)
            complete_allgather();
        break;
    case BOOT_ABORT:
    case BOOT_EXIT: {
        int code = (int)(int32_t)p->hdr.arg;
        const char *msg = p->body ? p->body : "";
        p->aborted = 1;
        void (*end)(int, const char *, ...) __attribute__((format(printf, 2, 3))) =
            p->hdr.type == BOOT_EXIT ? pe_failed : fail;
        if (msg[0])
            end(code, "PE %d: %s", p->rank, msg);
        else if (code != 0)
            end(code,
                "PE %d ended the job with status %d (shmem_global_exit, or the error it reported above); "
                "terminating the job",
                p->rank, code);
        else
            end(code, NULL);
        break;
    }
    case BOOT_FINALIZE: p->finalized = 1; break;
    default:
        fail(1, "protocol error: %s sent message type %u; terminating the job", pe_desc(p, d, sizeof d),
             (unsigned)p->hdr.type);
        return;
    }
    free(p->body);
    p->body = NULL;
}

/* Reads what the PE sent; returns after EAGAIN or when the socket closes. */
static void read_pe(struct pe *p) {
    char d[64];
    while (p->fd >= 0) {
        ssize_t n;
        if (p->hdr_got < sizeof p->hdr) {
            n = read(p->fd, (char *)&p->hdr + p->hdr_got, sizeof p->hdr - p->hdr_got);
        } else {
            n = read(p->fd, p->body + p->body_got, p->hdr.len - p->body_got);
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        if (n <= 0) { /* EOF or error: the PE closed it (finalize or exit) */
            close_pe_socket(p);
            return;
        }
        if (p->hdr_got < sizeof p->hdr) {
            p->hdr_got += (size_t)n;
            if (p->hdr_got < sizeof p->hdr)
                continue;
            uint64_t max = p->hdr.type == BOOT_ABORT || p->hdr.type == BOOT_EXIT ? BOOT_MAX_ABORT_MSG : BOOT_MAX_BLOB;
            if (p->hdr.len > max) {
                fail(1, "protocol error: %s sent a %llu-byte message (type %u); terminating the job",
                     pe_desc(p, d, sizeof d), (unsigned long long)p->hdr.len, (unsigned)p->hdr.type);
                close_pe_socket(p);
                return;
            }
            p->body = malloc(p->hdr.len + 1); /* +1: ABORT text gets a terminator */
            if (!p->body) {
                fail(1, "out of memory");
                return;
            }
            p->body_got = 0;
        } else {
            p->body_got += (size_t)n;
        }
        if (p->body_got == p->hdr.len) {
            p->body[p->hdr.len] = '\0';
            p->hdr_got = 0;
            handle_msg(p);
        }
    }
}

static void write_pe(struct pe *p) {
    while (p->fd >= 0 && p->outq) {
        struct outmsg *m = p->outq;
        size_t total = sizeof m->hdr + (m->body ? m->body->len : 0);
        struct iovec iov[2];
        int niov = 0;
        if (m->off < sizeof m->hdr) {
            iov[niov].iov_base = (char *)&m->hdr + m->off;
            iov[niov++].iov_len = sizeof m->hdr - m->off;
        }
        if (m->body && m->body->len) {
            size_t boff = m->off > sizeof m->hdr ? m->off - sizeof m->hdr : 0;
            iov[niov].iov_base = m->body->data + boff;
            iov[niov++].iov_len = m->body->len - boff;
        }
        struct msghdr mh = {.msg_iov = iov, .msg_iovlen = (size_t)niov};
        ssize_t n = sendmsg(p->fd, &mh, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN)
                return;
            close_pe_socket(p); /* the PE is gone; its exit decides what happens */
            return;
        }
        m->off += (size_t)n;
        if (m->off == total) {
            p->outq = m->next;
            if (!p->outq)
                p->outq_tail = NULL;
            put_obuf(m->body);
            free(m);
        }
    }
}

/* ---- PE exit ---- */

static void pe_exited(struct pe *p, int status) {
    char d[64];
    p->reaped = 1;
    p->status = status;
    clock_gettime(CLOCK_REALTIME, &p->reap_time);
    job.nreaped++;
    read_pe(p); /* a FINALIZE or ABORT written just before exit is still in the socket */
    close_pe_socket(p);
    if (job.tearing_down)
        return;
    pe_desc(p, d, sizeof d);
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        pe_failed(128 + sig, "%s was killed by signal %d (%s)%s; terminating the job", d, sig, strsignal(sig),
                  sig == job.forwarded_sig ? " forwarded by oshrun" : "");
    } else if (WIFEXITED(status)) {
        int st = WEXITSTATUS(status);
        int no_fin = p->hello && !p->finalized;
        if (st != 0)
            pe_failed(st, "%s exited with status %d%s; terminating the job", d, st,
                      no_fin ? " without calling shmem_finalize" : "");
        else if (no_fin)
            pe_failed(1, "%s exited with status 0 without calling shmem_finalize; terminating the job", d);
    }
}

static void reap(void) {
    for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid <= 0)
            return;
        for (int r = 0; r < job.npes; r++)
            if (job.pes[r].pid == pid && !job.pes[r].reaped) {
                pe_exited(&job.pes[r], status);
                if (r == 0 && job.stdin_pipe >= 0) {
                    close(job.stdin_pipe);
                    job.stdin_pipe = -1;
                    job.stdin_fwd = 0;
                }
                break;
            }
    }
}

/* ---- signals ---- */

/* Blocking the signals sends them to our signalfd only if no thread has them unblocked. A thread we did not start
 * (one a library in LD_PRELOAD starts from its constructor, before main) keeps them unblocked, and the kernel hands
 * a process-wide signal to such a thread: with the default action a SIGCHLD was lost there (oshrun waited for good
 * on PEs that had exited) and a SIGTERM killed oshrun without passing it on. So each of these signals also has this
 * handler, which runs in whatever thread takes it and passes the number on through a pipe. */
static void relay_signal(int sig) {
    int e = errno;
    unsigned char b = (unsigned char)sig;
    if (write(job.relay[1], &b, 1) < 0) { /* full: signals already wait there, and SIGCHLDs coalesce anyway */
    }
    errno = e;
}

static void handle_signal(int sig) {
    if (sig == SIGCHLD) {
        reap();
    } else if (sig == SIGTSTP) {
        /* Ctrl-Z reached only us (the PEs have their own process group): stop them, then ourselves */
        signal_group(SIGSTOP);
        kill(getpid(), SIGSTOP);
    } else if (sig == SIGCONT) {
        signal_group(SIGCONT);
    } else {
        if (job.tearing_down && (sig == SIGINT || sig == SIGTERM)) {
            /* asked twice: do not wait for the grace period */
            signal_group(SIGKILL);
            job.kill_sent = 1;
            return;
        }
        if (job.verbose)
            note("oshrun: forwarding signal %d (%s) to the PEs", sig, strsignal(sig));
        job.forwarded_sig = sig;
        signal_group(sig);
        /* a PE that catches a terminating signal and carries on (some libraries install handlers) must not
         * keep the job alive: SIGKILL after the grace period, as in a teardown */
        if ((sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT) && job.kill_at_ms < 0)
            job.kill_at_ms = now_ms() + KILL_GRACE_MS;
    }
}

static void handle_signals(void) {
    struct signalfd_siginfo si;
    unsigned char b;
    while (read(job.sigfd, &si, sizeof si) == sizeof si)
        handle_signal((int)si.ssi_signo);
    while (read(job.relay[0], &b, 1) == 1)
        handle_signal(b);
    reap(); /* SIGCHLDs coalesce; be sure */
}

/* ---- output tagging ---- */

static void tag_emit(struct pe *p, struct tagstream *t, const char *s, size_t n, int add_nl) {
    char line[LINE_MAX_TAG + 32];
    int h = snprintf(line, 32, "[PE %d] ", p->rank);
    memcpy(line + h, s, n);
    size_t len = (size_t)h + n;
    if (add_nl)
        line[len++] = '\n';
    write_all(t->out, line, len);
}

static void tag_read(struct pe *p, struct tagstream *t) {
    for (;;) {
        ssize_t n = read(t->fd, t->buf + t->len, sizeof t->buf - t->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        if (n <= 0) {
            if (t->len)
                tag_emit(p, t, t->buf, t->len, 1);
            t->len = 0;
            close(t->fd);
            t->fd = -1;
            return;
        }
        t->len += (size_t)n;
        size_t start = 0;
        for (size_t i = 0; i < t->len; i++)
            if (t->buf[i] == '\n') {
                tag_emit(p, t, t->buf + start, i + 1 - start, 0);
                start = i + 1;
            }
        if (start == 0 && t->len == sizeof t->buf) { /* a very long line: pass it on in pieces */
            tag_emit(p, t, t->buf, t->len, 1);
            t->len = 0;
        } else {
            memmove(t->buf, t->buf + start, t->len - start);
            t->len -= start;
        }
    }
}

static void forward_stdin(void) {
    char buf[4096];
    ssize_t n = read(0, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        close(job.stdin_pipe);
        job.stdin_pipe = -1;
        job.stdin_fwd = 0;
        return;
    }
    write_all(job.stdin_pipe, buf, (size_t)n);
}

/* ---- start-up ---- */

static void make_jobid(void) {
    uint32_t rnd = 0;
    if (getrandom(&rnd, sizeof rnd, GRND_NONBLOCK) != sizeof rnd)
        rnd = (uint32_t)now_ms() ^ (uint32_t)getpid() << 16;
    snprintf(job.jobid, sizeof job.jobid, "o%d-%08x", (int)getpid(), rnd);
}

static void fd_nonblock(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

static void __attribute__((noreturn, format(printf, 2, 3))) startup_failure(int code, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    note("oshrun: %s", msg);
    signal_group(SIGKILL);
    pid_t pid;
    while ((pid = waitpid(-1, NULL, 0)) > 0 || errno == EINTR)
        for (int r = 0; pid > 0 && r < job.npes; r++)
            if (job.pes[r].pid == pid && !job.pes[r].reaped) {
                job.pes[r].reaped = 1;
                clock_gettime(CLOCK_REALTIME, &job.pes[r].reap_time);
            }
    cleanup_shm();
    exit(code);
}

/* Runs in the child between fork and exec; only async-signal-safe work and setenv (the child has one thread). */
static void __attribute__((noreturn))
child(struct pe *p, int bootfd, int in_fd, int out_fd, int err_fd, int errpipe, pid_t parent) {
    setpgid(0, job.pgid); /* job.pgid == 0 for PE 0: it founds the group */
    /* oshrun killed with SIGKILL: no orphaned PEs. A PE's library replaces it with its own watch once it is up (a
     * line, and its /dev/shm files removed: src/bootstrap/watch.c); programs without gshmem keep it. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(1);
    if (in_fd >= 0)
        dup2(in_fd, 0);
    if (out_fd >= 0)
        dup2(out_fd, 1);
    if (err_fd >= 0)
        dup2(err_fd, 2);
    fcntl(bootfd, F_SETFD, 0); /* the only descriptor of ours that survives exec */
    char v[32];
    snprintf(v, sizeof v, "%d", bootfd);
    setenv("GSHMEM_BOOT_FD", v, 1);
    snprintf(v, sizeof v, "%d", p->rank);
    setenv("GSHMEM_RANK", v, 1);
    if (job.bind_set) {
        char cores[256];
        gtopo_cpus_str(&job.bind_set[p->rank], cores, sizeof cores);
        setenv("GSHMEM_BIND", cores, 1);
        if (job.bind_apply) /* (a failure leaves the PE unbound: still correct) */
            sched_setaffinity(0, sizeof job.bind_set[p->rank], &job.bind_set[p->rank]);
    }
    signal(SIGPIPE, SIG_DFL);
    for (int sig = 1; sig < NSIG; sig++) /* (exec would reset them too, but a signal may come before it) */
        if (sigismember(&job.sigmask, sig) == 1)
            signal(sig, SIG_DFL);
    sigprocmask(SIG_SETMASK, &job.oldmask, NULL);
    execvp(job.argv[0], job.argv);
    int e = errno;
    if (write(errpipe, &e, sizeof e) < 0) {
    }
    _exit(127);
}

/* Where each PE runs. By default PE r on the r-th of oshrun's CPUs, as Open MPI's launcher binds small jobs: two
 * PEs left to the scheduler often share one core while the other idles (a 4 KiB exchange then takes 40x longer, and
 * timings split in two groups). By default only when every PE gets a CPU of its own and there are two or more (one
 * PE gains nothing, and unbound it may use every CPU for its threads); --bind-to none leaves them all unbound.
 * --map-by numa|gpu deals PEs to the NUMA nodes or to the GPUs in turn (hwloc's topology), each on the next free
 * core near it; --bind-to numa binds to all the cores there instead of one. Each PE learns its cores from
 * GSHMEM_BIND (and takes the GPU and NIC nearest them); GSHMEM_CPUS tells it how many CPUs the job has, which its own
 * affinity no longer shows. With HWLOC_XMLFILE (another node's topology, for tests) nothing is bound: the PEs are
 * only told where they would run. */
static void plan_binding(void) {
    cpu_set_t set;
    int cpus[CPU_SETSIZE], n = 0;
    if (!sched_getaffinity(0, sizeof set, &set))
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set))
                cpus[n++] = c;
    char why[160] = "";
    /* (the topology only when asked for: hwloc takes milliseconds to read this machine's) */
    int topo = (job.map || job.bind == 2 || getenv("HWLOC_XMLFILE")) && !gtopo_load(why, sizeof why);
    if ((job.map || job.bind == 2) && !topo) {
        note("oshrun: --map-by/--bind-to numa or gpu need the node's topology, and %s: placing PE r on the r-th CPU",
             why);
        job.map = 0;
        job.bind = job.bind == 2 ? 1 : job.bind;
    }
    job.bind_apply = !topo || gtopo_thissystem();
    if (topo && !job.bind_apply) { /* another node's topology: its CPUs, not ours */
        n = 0;
        for (int i = 0; i < gtopo_numa_count(); i++) {
            cpu_set_t s;
            gtopo_numa_cpus(i, &s);
            for (int c = 0; c < CPU_SETSIZE; c++)
                if (CPU_ISSET(c, &s))
                    cpus[n++] = c;
        }
    }
    job.ncpus = n;
    int bind = job.bind > 0 || (job.bind < 0 && job.npes >= 2 && job.npes <= n) || job.map;
    if (!bind || n == 0 || job.bind == 0) {
        unsetenv("GSHMEM_CPUS");
        return;
    }
    job.bind_set = calloc((size_t)job.npes, sizeof *job.bind_set);
    if (!job.bind_set) {
        note("oshrun: out of memory: the PEs run unbound");
        return;
    }
    int groups = job.map == 1 ? gtopo_numa_count() : job.map == 2 ? gtopo_dev_count(GTOPO_GPU) : 0;
    if (job.map && groups == 0) {
        note("oshrun: --map-by %s: the topology has no %s: placing PE r on the r-th CPU", job.map == 1 ? "numa" : "gpu",
             job.map == 1 ? "NUMA node" : "GPU");
        job.map = 0;
    }
    int used[CPU_SETSIZE] = {0};
    groups = groups < CPU_SETSIZE ? groups : CPU_SETSIZE;
    for (int r = 0; r < job.npes; r++) {
        cpu_set_t near, *b = &job.bind_set[r];
        CPU_ZERO(b);
        if (!job.map) {
            CPU_SET(cpus[r % n], b);
        } else {
            char busid[32];
            int g = r % groups, k = used[g]++, m = 0;
            if (job.map == 1)
                gtopo_numa_cpus(g, &near);
            else
                gtopo_dev(GTOPO_GPU, g, busid, sizeof busid, &near);
            for (int i = 0; i < n; i++) /* near cores oshrun may use */
                m += CPU_ISSET(cpus[i], &near) != 0;
            int pick = -1, seen = 0;
            for (int i = 0; i < n && pick < 0; i++)
                if (CPU_ISSET(cpus[i], &near) && seen++ == k % (m ? m : 1))
                    pick = cpus[i];
            if (pick < 0) /* none of oshrun's CPUs is near: any */
                pick = cpus[r % n];
            CPU_SET(pick, b);
        }
        if (job.bind == 2) { /* the whole NUMA node (or GPU's cores) the PE's core is in */
            int c = 0;
            while (!CPU_ISSET(c, b))
                c++;
            if (job.map == 2) {
                char busid[32];
                gtopo_dev(GTOPO_GPU, r % groups, busid, sizeof busid, &near);
                CPU_OR(b, b, &near);
            } else {
                for (int i = 0; i < gtopo_numa_count(); i++)
                    if (!gtopo_numa_cpus(i, &near) && CPU_ISSET(c, &near))
                        CPU_OR(b, b, &near);
            }
        }
    }
    char v[16];
    snprintf(v, sizeof v, "%d", n);
    setenv("GSHMEM_CPUS", v, 1);
    if (job.verbose)
        note("oshrun: placing the PEs on %d CPUs (%s, bound to %s)%s", n,
             job.map == 2   ? "near the GPUs in turn"
             : job.map == 1 ? "NUMA nodes in turn"
                            : "PE r on the r-th",
             job.bind == 2 ? "their NUMA node" : "one core", job.bind_apply ? "" : " (HWLOC_XMLFILE: not bound)");
}

static void spawn_all(void) {
    int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    int stdin_r = -1;
    /* PE 0 reads stdin like under mpirun; a terminal is relayed through oshrun, and only when we own it (a job in the
     * shell's background reading the terminal would stop) */
    if (isatty(0)) {
        if (tcgetpgrp(0) == getpgrp()) {
            int sp[2];
            if (pipe2(sp, O_CLOEXEC) == 0) {
                stdin_r = sp[0];
                job.stdin_pipe = sp[1];
                job.stdin_fwd = 1;
            }
        } else {
            stdin_r = devnull;
        }
    }
    char v[32];
    snprintf(v, sizeof v, "%d", job.npes);
    setenv("GSHMEM_SIZE", v, 1);
    plan_binding();
    setenv("GSHMEM_JOBID", job.jobid, 1);
    pid_t self = getpid();
    for (int r = 0; r < job.npes; r++) {
        struct pe *p = &job.pes[r];
        p->rank = r;
        p->tag[0].fd = p->tag[1].fd = -1;
        int sv[2], ep[2], op[2] = {-1, -1}, errp[2] = {-1, -1};
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
            startup_failure(1, "socketpair: %s", strerror(errno));
        if (pipe2(ep, O_CLOEXEC) < 0)
            startup_failure(1, "pipe: %s", strerror(errno));
        if (job.tag_output && (pipe2(op, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0))
            startup_failure(1, "pipe: %s", strerror(errno));
        pid_t pid = fork();
        if (pid < 0)
            startup_failure(1, "fork: %s", strerror(errno));
        if (pid == 0)
            child(p, sv[1], r == 0 ? stdin_r : devnull, op[1], errp[1], ep[1], self);
        p->pid = pid;
        if (r == 0)
            job.pgid = pid;
        setpgid(pid, job.pgid); /* also here: whichever of parent and child runs first */
        close(sv[1]);
        close(ep[1]);
        p->fd = sv[0];
        fd_nonblock(p->fd);
        if (job.tag_output) {
            close(op[1]);
            close(errp[1]);
            p->tag[0] = (struct tagstream){.fd = op[0], .out = 1};
            p->tag[1] = (struct tagstream){.fd = errp[0], .out = 2};
            fd_nonblock(op[0]);
            fd_nonblock(errp[0]);
        }
        int e;
        ssize_t n;
        while ((n = read(ep[0], &e, sizeof e)) < 0 && errno == EINTR) {
        }
        close(ep[0]);
        if (n == sizeof e)
            startup_failure(e == ENOENT ? 127 : 126, "cannot run '%s': %s", job.argv[0], strerror(e));
    }
    if (stdin_r >= 0 && stdin_r != devnull)
        close(stdin_r);
    if (devnull >= 0)
        close(devnull);
}

int main(int argc, char **argv) {
    /* descriptors 0-2 must exist, or a socket could land there and be clobbered by dup2 in the child */
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0)
            open("/dev/null", O_RDWR);
    parse_args(argc, argv);
    if (job.remote)
        exec_mpirun(); /* mpirun serves OSHMEM's programs too */
    char soname[256];
    int foreign = foreign_openshmem(job.argv[0], soname, sizeof soname);
    if (foreign >= 0) {
        note("oshrun: %s is linked against %s (%s), not gshmem, so its PEs would not find gshmem's launcher; %s, or "
             "rebuild it with gshmem's oshcc",
             job.argv[0], foreign_libs[foreign].who, soname, foreign_libs[foreign].instead);
        exit(126);
    }

    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGCHLD);
    struct sigaction tstp;
    if (sigaction(SIGTSTP, NULL, &tstp) == 0 && tstp.sa_handler != SIG_IGN)
        sigaddset(&mask, SIGTSTP);
    sigaddset(&mask, SIGCONT);
    for (size_t i = 0; i < sizeof fwd_signals / sizeof fwd_signals[0]; i++) {
        /* a signal ignored on entry stays ignored, for us and the PEs (nohup; background jobs of a script) */
        struct sigaction sa;
        if (sigaction(fwd_signals[i], NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
            continue;
        sigaddset(&mask, fwd_signals[i]);
    }
    sigprocmask(SIG_BLOCK, &mask, &job.oldmask);
    job.sigmask = mask;
    job.sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    if (job.sigfd < 0 || pipe2(job.relay, O_NONBLOCK | O_CLOEXEC)) {
        note("oshrun: %s: %s", job.sigfd < 0 ? "signalfd" : "pipe", strerror(errno));
        return 1;
    }
    struct sigaction relay = {.sa_handler = relay_signal, .sa_flags = SA_RESTART};
    sigfillset(&relay.sa_mask);
    for (int sig = 1; sig < NSIG; sig++)
        if (sigismember(&mask, sig) == 1)
            sigaction(sig, &relay, NULL);
    signal(SIGPIPE, SIG_IGN); /* a PE or our reader went away: handled where we write */

    make_jobid();
    job.pes = calloc((size_t)job.npes, sizeof *job.pes);
    if (!job.pes) {
        note("oshrun: out of memory");
        return 1;
    }
    spawn_all();
    if (job.verbose)
        note("oshrun: started %d PE%s of %s, job %s", job.npes, job.npes == 1 ? "" : "s", job.argv[0], job.jobid);
    if (job.timeout_s > 0)
        job.timeout_at_ms = now_ms() + (long long)(job.timeout_s * 1000);

    size_t maxfds = 3 + 3 * (size_t)job.npes;
    struct pollfd *pf = calloc(maxfds, sizeof *pf);
    struct pe **owner = calloc(maxfds, sizeof *owner);
    int *kind = calloc(maxfds, sizeof *kind); /* 0 boot socket, 1/2 tag stream, -1 signalfd, -2 stdin */
    while (job.nreaped < job.npes) {
        size_t n = 0;
        pf[n] = (struct pollfd){.fd = job.sigfd, .events = POLLIN};
        kind[n++] = -1;
        pf[n] = (struct pollfd){.fd = job.relay[0], .events = POLLIN};
        kind[n++] = -1;
        if (job.stdin_fwd) {
            pf[n] = (struct pollfd){.fd = 0, .events = POLLIN};
            kind[n++] = -2;
        }
        for (int r = 0; r < job.npes; r++) {
            struct pe *p = &job.pes[r];
            if (p->fd >= 0) {
                pf[n] = (struct pollfd){.fd = p->fd, .events = POLLIN | (p->outq ? POLLOUT : 0)};
                owner[n] = p;
                kind[n++] = 0;
            }
            for (int s = 0; s < 2; s++)
                if (p->tag[s].fd >= 0) {
                    pf[n] = (struct pollfd){.fd = p->tag[s].fd, .events = POLLIN};
                    owner[n] = p;
                    kind[n++] = 1 + s;
                }
        }
        long long now = now_ms(), wake = -1;
        if (job.kill_at_ms >= 0 && !job.kill_sent)
            wake = job.kill_at_ms;
        if (job.term_at_ms >= 0 && !job.term_sent && (wake < 0 || job.term_at_ms < wake))
            wake = job.term_at_ms;
        if (job.timeout_at_ms >= 0 && !job.tearing_down && (wake < 0 || job.timeout_at_ms < wake))
            wake = job.timeout_at_ms;
        int timeout = wake < 0 ? -1 : wake <= now ? 0 : (int)(wake - now > INT_MAX ? INT_MAX : wake - now);
        int rc = poll(pf, n, timeout);
        if (rc < 0 && errno != EINTR) {
            note("oshrun: poll: %s", strerror(errno));
            fail(1, NULL);
        }
        /* boot sockets before the signalfd: a message written just before a PE's exit is seen first */
        for (size_t i = 0; rc > 0 && i < n; i++) {
            if (!pf[i].revents || kind[i] < 0)
                continue;
            struct pe *p = owner[i];
            if (kind[i] == 0) {
                if (pf[i].revents & POLLOUT)
                    write_pe(p);
                if (pf[i].revents & (POLLIN | POLLHUP | POLLERR))
                    read_pe(p);
            } else {
                tag_read(p, &p->tag[kind[i] - 1]);
            }
        }
        for (size_t i = 0; rc > 0 && i < n; i++) {
            if (!pf[i].revents)
                continue;
            if (kind[i] == -1)
                handle_signals();
            if (kind[i] == -2)
                forward_stdin();
        }
        check_stuck();
        check_settled();
        now = now_ms();
        if (job.timeout_at_ms >= 0 && !job.tearing_down && now >= job.timeout_at_ms)
            fail(124, "the job ran longer than --timeout %g seconds; terminating the job", job.timeout_s);
        if (!job.kill_sent && job.kill_at_ms >= 0 && now >= job.kill_at_ms) {
            if (!job.tearing_down)
                note("oshrun: the PEs are still running %d ms after signal %d (%s); killing them", KILL_GRACE_MS,
                     job.forwarded_sig, strsignal(job.forwarded_sig));
            signal_group(SIGKILL);
            job.kill_sent = 1;
        }
    }
    /* grandchildren of a failed job go too; a clean job's background processes are left alone */
    if (job.tearing_down)
        signal_group(SIGKILL);
    for (int r = 0; r < job.npes; r++)
        for (int s = 0; s < 2; s++)
            if (job.pes[r].tag[s].fd >= 0) {
                /* what the PE wrote before it exited is in the pipe; a grandchild holding it open must not block us */
                tag_read(&job.pes[r], &job.pes[r].tag[s]);
                if (job.pes[r].tag[s].fd >= 0) {
                    struct tagstream *t = &job.pes[r].tag[s];
                    if (t->len)
                        tag_emit(&job.pes[r], t, t->buf, t->len, 1);
                    close(t->fd);
                    t->fd = -1;
                }
            }
    cleanup_shm();
    return job.tearing_down ? job.exit_code : 0;
}
