/* tw_confine.h - how a sandboxed match's process confines itself before any student code runs.
 *
 * Used by the box program that plays a compiled C or C++ submission (c_src/box/tw_box.c) and, through the
 * package's compiled core (twentyone.core.confine), by the process that plays a Python submission.  The
 * engine (twentyone/players/sandbox/box.py) writes a tw_box_config, then the root path, the filter program
 * and the extra bytes, on the request pipe; the process confines itself with tw_confine and says which layers
 * hold (TW_LAYER_*) in its first frame, before it loads or runs anything of the student's.
 * Read twentyone/players/sandbox/SANDBOX.md for the design.
 */
#ifndef TW_CONFINE_H
#define TW_CONFINE_H

#include <stddef.h>
#include <stdint.h>

#define TW_BOX_MAGIC 0x58425754u /* "TWBX" */
#define TW_BOX_VERSION 2

/* The layers that hold, as the first frame reports them; the Landlock ABI used is in bits 8..15. */
#define TW_LAYER_SECCOMP 0x01  /* the system-call filter */
#define TW_LAYER_LANDLOCK 0x02 /* Landlock: no file, no TCP, (ABI 6) no signal or abstract socket outside */
#define TW_LAYER_ROOT 0x04     /* an empty root (chroot) */
#define TW_LAYER_UID 0x08      /* an unprivileged uid and gid, no supplementary groups (started as root) */
#define TW_LAYER_USERNS 0x10   /* a user namespace of its own (started as an ordinary user) */
#define TW_LAYER_LIMITS 0x20   /* resource limits: memory, CPU, file size, descriptors, no processes */
#define TW_LAYER_FDS 0x40      /* only the descriptors the engine gave it */
#define TW_LAYER_NOPROC 0x80   /* no new processes: RLIMIT_NPROC 0 once unprivileged */
/* Each layer is named only when the process has observed its effect (tw_confine.c): Landlock refusing the
 * root folder, the chroot's "/" being the empty folder, the limits read back, ... never from a flag alone. */

/* tw_box_config.flags */
#define TW_BOX_F_USERNS 0x01 /* an ordinary user may try a user namespace for the empty root */

typedef struct {
    uint32_t magic, version, flags;
    int32_t engine_pid;   /* the process must be its child; it dies with it */
    int32_t landlock_cap; /* the highest Landlock ABI to use (0: none) */
    int32_t uid, gid;     /* started as root: the identity to drop to */
    int32_t k;            /* the function set played */
    int64_t memory_bytes; /* RLIMIT_AS */
    int64_t output_bytes; /* RLIMIT_FSIZE: the capture file's cap */
    int64_t decision_usec; /* CPU time a call may take (0: no limit) */
    int32_t cpu_seconds;  /* RLIMIT_CPU of the whole match (hard limit one second more) */
    int32_t open_files;   /* RLIMIT_NOFILE */
    uint32_t root_len, bpf_len, extra_len; /* the sizes of what follows the header */
    /* Layers (TW_LAYER_*) NOT to set: 0 in every match.  Only the doctor and the tests set it, to prove
     * that each layer holds alone; no command-line option reaches it. */
    uint32_t off;
} tw_box_config;

/* The largest root path, filter program and extra bytes a process accepts. */
#define TW_BOX_MAX_ROOT 4096u
#define TW_BOX_MAX_BPF (64u * 1024u)
#define TW_BOX_MAX_EXTRA (8u * 1024u * 1024u)

/* Confine this process as cfg says: root is the empty folder to use as its root, bpf the filter program
 * (struct sock_filter[]) in which the placeholder 0x7EADBEEF is replaced by this process's pid and
 * 0x7EADBEE8 by the base of its own CPU clock ids, (~pid << 3).  Returns the
 * layers that hold (TW_LAYER_*, Landlock's ABI in bits 8..15), or -1 with why[] set when the minimum (the
 * filter, the limits and the descriptors) cannot be had: then nothing of the student's may run.  The layers
 * in cfg->off are not set (and the minimum not required): the doctor's and the tests' switch. */
int tw_confine(const tw_box_config *cfg, const char *root, const unsigned char *bpf, size_t bpf_len, char *why,
               size_t why_len);

/* The Landlock ABI of this kernel (0: none). */
int tw_landlock_abi(void);

#endif
