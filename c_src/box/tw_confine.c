/* tw_confine.c - the confinement of a sandboxed match's process (see tw_confine.h and SANDBOX.md).
 *
 * Layers, in the order they are set, each holding without the ones after it:
 *   1. it dies with the engine, and keeps only descriptors 0..4 (the engine's: /dev/null, the capture file
 *      twice, the request pipe, the reply pipe);
 *   2. resource limits: memory, CPU time, file size, descriptors, no core; it refuses to go on when the address
 *      space is over the memory limit already (mapped before the limit was set: a program's own .bss);
 *   3. an empty root and no privileges: started as root, chroot into an empty folder and drop to an
 *      unprivileged uid and gid; started as an ordinary user, the same root inside a user namespace of its own
 *      (where the host allows one) with every capability dropped;
 *   4. no new processes (RLIMIT_NPROC 0 once unprivileged) and no new privileges;
 *   5. Landlock at whatever ABI the kernel has (capped by the engine): no file, no TCP, no signal or abstract
 *      socket out of the domain;
 *   6. the system-call filter, built by the engine (twentyone/players/sandbox/seccomp.py): no process, no
 *      program, no socket, no file opened or looked up by name, and signals, limits and affinity only on
 *      itself.  This layer alone keeps the minimum (no signal or trace of another process, no new process,
 *      nothing of the grader's files readable, nothing writable); without it nothing of the student's runs.
 */
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include "tw_confine.h"

#define TW_PID_PLACEHOLDER 0x7EADBEEFu
#define TW_CLOCK_PLACEHOLDER 0x7EADBEE8u
#define TW_NR_CLOSE_RANGE 436
#define TW_NR_LANDLOCK_CREATE_RULESET 444
#define TW_NR_LANDLOCK_RESTRICT_SELF 446

/* The words that begin tw_confine's why[] when the address space is over the memory limit already (the engine
 * tells this refusal, the program's own doing, from a host that cannot confine). */
#define TW_OVER_MEMORY "its address space"

/* Landlock's ABI, written out so that older kernel headers build it too. */
struct tw_landlock_attr {
    uint64_t handled_access_fs, handled_access_net, scoped;
};

int tw_landlock_abi(void)
{
    long v = syscall(TW_NR_LANDLOCK_CREATE_RULESET, NULL, (size_t)0, (uint32_t)1 /* VERSION */);
    return v > 0 ? (int)v : 0;
}

static void tw_why(char *why, size_t len, const char *what)
{
    if (why && len) snprintf(why, len, "%s: %s", what, strerror(errno));
}

/* Set a limit and read it back: a limit counts only as the kernel then reports it. */
static int tw_limit(int resource, rlim_t soft, rlim_t hard)
{
    struct rlimit r = { soft, hard };
    if (setrlimit(resource, &r)) return -1;
    if (getrlimit(resource, &r)) return -1;
    if (r.rlim_cur != soft || r.rlim_max != hard) {
        errno = EPERM;
        return -1;
    }
    return 0;
}

/* RLIMIT_AS refuses new mappings only: what is mapped already stays, whatever its size, and execve mapped the
 * program's own .bss and the loader its static TLS before main.  So the memory limit counts only once the
 * address space is seen under it, by the kernel's own count: one more page is mapped (mmap refuses a page past
 * RLIMIT_AS, with ENOMEM) and the size /proc/self/statm shows (read before the chroot; where /proc cannot be
 * read the page alone decides) is not past it. */
static int tw_under_memory(int64_t limit, char *why, size_t len)
{
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0) page = 4096;
    unsigned long long size = 0;
    int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        char buf[128];
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n > 0) {
            buf[n] = 0;
            size = strtoull(buf, NULL, 10) * (unsigned long long)page;
        }
    }
    void *p = mmap(NULL, (size_t)page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int refused = p == MAP_FAILED;
    if (refused && errno != ENOMEM) {
        tw_why(why, len, "mapping a page under the memory limit");
        return 0;
    }
    if (!refused) munmap(p, (size_t)page);
    if (!refused && size + (unsigned long long)page <= (unsigned long long)limit) return 1;
    if (why && len) {
        if (size)
            snprintf(why, len, TW_OVER_MEMORY " (%llu MiB) is over the memory limit of %lld MiB before it ran",
                     (size + (1ull << 20) - 1) >> 20, (long long)(limit >> 20));
        else
            snprintf(why, len, TW_OVER_MEMORY " is over the memory limit of %lld MiB before it ran",
                     (long long)(limit >> 20));
    }
    errno = ENOMEM;
    return 0;
}

/* A Landlock domain with no rule: every handled access is refused everywhere.  It counts only once the
 * process has seen it refuse to read the root folder. */
static int tw_landlock(int cap)
{
    int abi = tw_landlock_abi();
    if (abi > cap) abi = cap;
    if (abi < 1) return 0;
    struct tw_landlock_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.handled_access_fs = (1ull << 13) - 1;     /* ABI 1: execute .. make_sym */
    if (abi >= 2) attr.handled_access_fs |= 1ull << 13; /* refer */
    if (abi >= 3) attr.handled_access_fs |= 1ull << 14; /* truncate */
    if (abi >= 5) attr.handled_access_fs |= 1ull << 15; /* ioctl_dev */
    if (abi >= 4) attr.handled_access_net = 3;          /* bind_tcp, connect_tcp */
    if (abi >= 6) attr.scoped = 3;                      /* abstract unix sockets, signals */
    size_t size = abi >= 6 ? 24 : abi >= 4 ? 16 : 8;
    int fd = (int)syscall(TW_NR_LANDLOCK_CREATE_RULESET, &attr, size, (uint32_t)0);
    if (fd < 0) return 0;
    long r = syscall(TW_NR_LANDLOCK_RESTRICT_SELF, fd, (uint32_t)0);
    close(fd);
    if (r != 0) return 0;
    int probe = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (probe >= 0) {
        close(probe);
        return 0;
    }
    return errno == EACCES ? abi : 0;
}

/* Drop every capability (of the user namespace the process is in). */
static int tw_drop_caps(void)
{
    struct { uint32_t version; int pid; } head = { 0x20080522 /* _LINUX_CAPABILITY_VERSION_3 */, 0 };
    struct { uint32_t effective, permitted, inheritable; } data[2];
    memset(data, 0, sizeof data);
    return (int)syscall(SYS_capset, &head, data);
}

/* chroot into the empty folder; it counts only when "/" is then that very folder. */
static int tw_chroot(const char *root)
{
    struct stat want, got;
    if (!root || !root[0] || stat(root, &want) != 0) return 0;
    if (chroot(root) != 0 || chdir("/") != 0) return 0;
    return stat("/", &got) == 0 && got.st_dev == want.st_dev && got.st_ino == want.st_ino;
}

/* Close every descriptor from lowest on; it counts when the next one up is then closed. */
static int tw_close_from(int lowest)
{
    if (syscall(TW_NR_CLOSE_RANGE, (unsigned)lowest, ~0u, 0u) != 0) {
        struct rlimit r;
        long top = getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < 65536 ? (long)r.rlim_cur : 65536;
        for (long fd = lowest; fd < top; fd++) close((int)fd);
    }
    return fcntl(lowest, F_GETFD) < 0 && errno == EBADF;
}

int tw_confine(const tw_box_config *cfg, const char *root, const unsigned char *bpf, size_t bpf_len, char *why,
               size_t why_len)
{
    int layers = 0;
    unsigned off = 0;
    if (why && why_len) why[0] = 0;
    if (cfg->magic != TW_BOX_MAGIC || cfg->version != TW_BOX_VERSION) {
        errno = EINVAL;
        tw_why(why, why_len, "the engine's configuration");
        return -1;
    }
    off = cfg->off;

    /* 1. It dies with the engine; only the engine's descriptors are left. */
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (cfg->engine_pid && getppid() != cfg->engine_pid) {
        errno = ESRCH;
        tw_why(why, why_len, "the engine has gone");
        return -1;
    }
    if (!(off & TW_LAYER_FDS)) {
        if (!tw_close_from(5)) {
            tw_why(why, why_len, "closing the descriptors it was not given");
            return -1;
        }
        layers |= TW_LAYER_FDS;
    }

    /* 2. Resource limits, each read back.  The CPU limit's hard limit is the soft one: at the limit the
     * kernel kills it (SIGKILL), so ignoring SIGXCPU buys no second more. */
    if (!(off & TW_LAYER_LIMITS)) {
        rlim_t cpu = cfg->cpu_seconds > 0 ? (rlim_t)cfg->cpu_seconds : 1;
        if (tw_limit(RLIMIT_CORE, 0, 0) || tw_limit(RLIMIT_MEMLOCK, 0, 0) ||
            tw_limit(RLIMIT_AS, (rlim_t)cfg->memory_bytes, (rlim_t)cfg->memory_bytes) ||
            tw_limit(RLIMIT_CPU, cpu, cpu) ||
            tw_limit(RLIMIT_FSIZE, (rlim_t)cfg->output_bytes, (rlim_t)cfg->output_bytes) ||
            tw_limit(RLIMIT_NOFILE, (rlim_t)cfg->open_files, (rlim_t)cfg->open_files) ||
            tw_limit(RLIMIT_MSGQUEUE, 0, 0)) {
            tw_why(why, why_len, "setrlimit");
            return -1;
        }
        if (!tw_under_memory(cfg->memory_bytes, why, why_len)) return -1;
        layers |= TW_LAYER_LIMITS;
    }

    /* 3. An empty root and no privileges. */
    if (geteuid() == 0) {
        if (!(off & TW_LAYER_ROOT) && tw_chroot(root)) layers |= TW_LAYER_ROOT;
        if (!(off & TW_LAYER_UID)) {
            /* A uid of its own: 2^30 + its pid, unique among living processes (pid_max is at most 2^22). */
            uid_t uid = cfg->uid > 0 ? (uid_t)cfg->uid : (uid_t)(0x40000000u + (unsigned)getpid());
            gid_t gid = cfg->gid > 0 ? (gid_t)cfg->gid : (gid_t)uid;
            if (setgroups(0, NULL) == 0 && setresgid(gid, gid, gid) == 0 && setresuid(uid, uid, uid) == 0 &&
                geteuid() == uid && getuid() == uid && setuid(0) != 0)
                layers |= TW_LAYER_UID;
            else {
                tw_why(why, why_len, "dropping root");
                return -1; /* root that cannot stop being root is not confined */
            }
        }
    } else if ((cfg->flags & TW_BOX_F_USERNS) && !(off & TW_LAYER_ROOT)) {
        /* A namespace in which the chroot is refused (AppArmor's restriction of unprivileged user namespaces)
         * adds nothing: it is not named as a layer. */
        if (unshare(CLONE_NEWUSER) == 0) {
            if (tw_chroot(root)) layers |= TW_LAYER_USERNS | TW_LAYER_ROOT;
            tw_drop_caps();
        }
    }

    /* 4. No new processes (it counts once it is not root, whom RLIMIT_NPROC does not bind), no new privileges
     * (which the filter needs too). */
    if (!(off & TW_LAYER_NOPROC)) {
        if (tw_limit(RLIMIT_NPROC, 0, 0)) {
            if (geteuid() != 0) {
                tw_why(why, why_len, "setrlimit(RLIMIT_NPROC)");
                return -1;
            }
        } else if (geteuid() != 0)
            layers |= TW_LAYER_NOPROC;
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1) {
        tw_why(why, why_len, "prctl(PR_SET_NO_NEW_PRIVS)");
        return -1;
    }

    /* 5. Landlock, at the ABI the kernel has, capped by the engine. */
    if (!(off & TW_LAYER_LANDLOCK)) {
        int abi = tw_landlock(cfg->landlock_cap);
        if (abi > 0) layers |= TW_LAYER_LANDLOCK | (abi << 8);
    }

    /* 6. The system-call filter, with this process's pid and CPU clock patched in. */
    if (off & TW_LAYER_SECCOMP) return layers;
    if (!bpf || bpf_len == 0 || bpf_len % sizeof(struct sock_filter) || bpf_len > TW_BOX_MAX_BPF) {
        errno = EINVAL;
        tw_why(why, why_len, "the system-call filter program");
        return -1;
    }
    static struct sock_filter prog[TW_BOX_MAX_BPF / sizeof(struct sock_filter)];
    size_t n = bpf_len / sizeof(struct sock_filter);
    uint32_t pid = (uint32_t)getpid();
    memcpy(prog, bpf, bpf_len);
    for (size_t i = 0; i < n; i++) {
        if (prog[i].k == TW_PID_PLACEHOLDER) prog[i].k = pid;
        else if (prog[i].k == TW_CLOCK_PLACEHOLDER) prog[i].k = (uint32_t)(~pid << 3);
    }
    struct sock_fprog fprog = { (unsigned short)n, prog };
    /* (Nothing after this may call what the filter forbids, prctl included: the doctor reads the filter's mode
     * from outside, in /proc/PID/status.) */
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0) != 0) {
        tw_why(why, why_len, "seccomp");
        return -1;
    }
    layers |= TW_LAYER_SECCOMP;
    return layers;
}
