/* viper-probe.h - libviperprobe: emit Viper trams from a running program.
 *
 * A ViperProbe is a channel: a file, "tcp:HOST:PORT" or "unix:PATH".
 * A ViperProbeModule is one module (PROC) writing through a channel; it owns
 * the module's sequence counter (D1 of every tram, from 1).  A line is
 *
 *     REC EV TIME PROC PROCESS NDATA 2 SEQ D2 .. Dn
 *
 * (see spec/picl.md).  Plain C11 + POSIX; no GLib.
 *
 * Thread safety: every function may be called from any thread.  A channel
 * holds one mutex; an emit takes the time stamp, assigns the sequence number
 * and appends the line under it, so on a channel each module's lines appear
 * in sequence order with non-decreasing clock readings.  Only
 * viper_probe_close and viper_probe_module_free must not race with other
 * calls on the same object.  The clock callback runs under the channel
 * mutex: it must not call back into the probe.
 *
 * Errors: functions returning int return 0 on success and -1 on failure;
 * viper_probe_error(p) then describes the failure (viper_probe_error(NULL)
 * describes the calling thread's last failed viper_probe_open).
 */
#ifndef VIPER_PROBE_H
#define VIPER_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VIPER_PROBE_VERSION "0.1.0"

typedef struct ViperProbe ViperProbe;
typedef struct ViperProbeModule ViperProbeModule;

/* A clock: returns the time stamp for the next tram (any unit; the Viper
 * examples use milliseconds). */
typedef double (*ViperProbeClock) (void *user_data);

/* Open a channel.  dest is "tcp:HOST:PORT" (HOST may be [v6addr]),
 * "unix:PATH", "-" (standard output, not closed by viper_probe_close),
 * "file:PATH" or any other string, taken as a file path (created or
 * truncated; a FIFO is opened for writing once a reader has opened it).
 * Returns NULL on failure; see viper_probe_error (NULL).
 * The environment sets two bounds, in seconds from 0 to 3600 (0 = none):
 * VIPER_PROBE_CONNECT_TIMEOUT (default 5), how long a connect, or the open
 * of a FIFO that has no reader yet, may wait (then NULL, errno ETIMEDOUT), and
 * VIPER_PROBE_WRITE_TIMEOUT (default 10), how long a write to a socket,
 * pipe or terminal may make no progress before the channel breaks.  A value
 * that is not such a number makes the open fail, naming the variable. */
ViperProbe *viper_probe_open (const char *dest);

/* Flush, close the descriptor (unless it is standard output) and free.
 * Returns -1 if the final flush failed (or the channel had broken); then
 * viper_probe_error (NULL) says why, with the final count of lines not
 * delivered.  NULL is accepted. */
int viper_probe_close (ViperProbe *p);

/* Description of the last failure on p, or with p == NULL of the calling
 * thread's last failed viper_probe_open.  Never NULL ("" when none). */
const char *viper_probe_error (const ViperProbe *p);

/* The default clock of modules that set none: CLOCK_MONOTONIC in
 * milliseconds (with fraction).  Passing clock == NULL restores it. */
void viper_probe_set_clock (ViperProbe *p, ViperProbeClock clock, void *user_data);

/* Digits after the decimal point of TIME (0..9, default 3: microseconds
 * when the unit is ms). */
void viper_probe_set_time_decimals (ViperProbe *p, int decimals);

/* In-memory buffering (the thesis's trace_buf): while on, lines are kept in
 * memory and written by viper_probe_flush, when the buffer exceeds its
 * limit, when buffering is switched off, or at close.  Off by default
 * (every emit writes its line at once). */
int viper_probe_set_buffering (ViperProbe *p, bool on);

/* Buffer limit in bytes (0 = unbounded, the default).  Reaching it writes
 * the buffer out rather than dropping lines: a dropped line would leave a
 * gap in its module's sequence numbers. */
void viper_probe_set_buffer_limit (ViperProbe *p, size_t bytes);

/* Write every buffered line.  Full writes: retried on EINTR and partial
 * writes; sockets use MSG_NOSIGNAL, so a closed peer gives an error, not
 * SIGPIPE.  A reader that takes nothing for VIPER_PROBE_WRITE_TIMEOUT
 * seconds breaks the channel as a write error does.  After either the
 * channel stays broken: every later call fails at once with the same error,
 * which says why and how many lines were not delivered. */
int viper_probe_flush (ViperProbe *p);

/* Lines given to this channel (emits with tracing on, comments) that were
 * not delivered: those in the buffer or cut when the channel broke, and
 * every one offered since.  0 while the channel works. */
uint64_t viper_probe_lines_lost (const ViperProbe *p);

/* Bytes currently buffered. */
size_t viper_probe_buffered (const ViperProbe *p);

/* Write "# text" as a comment line (ignored by Viper). */
int viper_probe_comment (ViperProbe *p, const char *text);

/* A module writing through p as PROC proc (-1 = the program manager).
 * Several modules may share one channel. */
ViperProbeModule *viper_probe_module_new (ViperProbe *p, long long proc);
void viper_probe_module_free (ViperProbeModule *m);

/* This module's own clock (a simulator's skewed clock); NULL = the
 * channel's. */
void viper_probe_module_set_clock (ViperProbeModule *m, ViperProbeClock clock, void *user_data);

/* tracing(on|off): while off, emits are accepted and discarded without
 * using sequence numbers, so the trace stays gap-free.  On by default. */
void viper_probe_module_set_tracing (ViperProbeModule *m, bool on);

/* Sequence number of this module's last emitted tram (0 before the first). */
uint64_t viper_probe_module_seq (const ViperProbeModule *m);

long long viper_probe_module_proc (const ViperProbeModule *m);

/* Emit REC EV TIME PROC PROCESS NDATA 2 SEQ data[0..n-1], NDATA = n + 1,
 * TIME from the module's clock.  The sequence number is used even when the
 * write fails. */
int viper_probe_emit (ViperProbeModule *m, int rec, int ev, int process,
                      size_t n, const int64_t *data);

/* The same with an explicit time stamp. */
int viper_probe_emit_at (ViperProbeModule *m, double time, int rec, int ev, int process,
                         size_t n, const int64_t *data);

#ifdef __cplusplus
}
#endif

#endif /* VIPER_PROBE_H */
