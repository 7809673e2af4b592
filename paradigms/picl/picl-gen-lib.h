/* picl-gen-lib.h - random, deadlock-free PICL message-passing traces.
 *
 * The generator behind viper-picl-gen, callable in-process by tests: it
 * writes a random program (blocking and non-blocking sends and receives,
 * any-source receives, tags, barriers, trace messages) over P processors,
 * executes it in simulated true time, stamps each event with its processor's
 * imperfect clock (offset, drift, jitter) and delivers the lines either in
 * true-time order or in a random interleaving that keeps each processor's
 * order.  The result also says which lines form each message.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  VIPER_PICL_DELIVERY_INORDER = 0,   /* all lines sorted by true time */
  VIPER_PICL_DELIVERY_SHUFFLED,      /* random interleaving, each processor's order kept */
} ViperPiclDelivery;

typedef struct {
  guint procs;              /* >= 2 */
  guint messages;
  guint64 seed;
  guint tags;               /* tags are drawn from 0 .. tags-1 (>= 1) */
  double p_nonblocking;     /* chance that a send, and independently a receive, is non-blocking */
  double p_anysource;       /* chance that a receive names source -1 */
  double p_hoist;           /* chance, per receive passed, that a send moves before it (crossing messages) */
  double p_delay;           /* chance, per place, that a receive moves one more message later (reordering) */
  guint barriers;           /* global barriers (0 = none; then no subset definition either) */
  guint collectives;        /* further collectives of every kind (COMMON contract) over subsets 2 and 3 */
  double p_waitall;         /* chance that a receive wait also waits for the pending send waits (MPI_Waitall) */
  double p_note;            /* chance of a trace message (-911) before a call */
  double offset;            /* clock offset per processor, uniform in [-offset, offset] seconds */
  double drift;             /* relative clock drift per processor, uniform in [-drift, drift] */
  double jitter;            /* time stamp noise per event, uniform in [0, jitter) seconds */
  double latency;           /* mean message latency, seconds */
  double compute;           /* mean computation between calls, seconds */
  gboolean true_time;       /* stamp true times (no offset, drift or jitter) */
  ViperPiclDelivery delivery;
} ViperPiclGenOptions;

typedef enum {
  VIPER_PICL_LINE_OTHER = 0,
  VIPER_PICL_LINE_SEND,     /* a send begin (-3 -21 or -3 -27) */
  VIPER_PICL_LINE_RECV_END, /* a receive end (-4 -52 or -4 -61) */
} ViperPiclLineRole;

typedef struct {
  const char *text;         /* the tram line, no line end */
  gint64 proc;              /* -1 for the subset definition */
  guint32 index;            /* position among its processor's lines, from 0 */
  gint32 message;           /* SEND / RECV_END: index in messages; else -1 */
  guint8 role;              /* ViperPiclLineRole */
  double true_time;
} ViperPiclGenLine;

typedef struct {
  gint64 src, dest, tag;
  guint32 send_line;        /* position of the send begin in lines */
  guint32 recv_line;        /* position of the receive end in lines */
} ViperPiclGenMessage;

typedef struct {
  guint procs;
  GArray *lines;            /* of ViperPiclGenLine, in delivery order */
  GArray *messages;         /* of ViperPiclGenMessage, in generation order */
  guint32 *proc_lines;      /* lines per processor 0 .. procs-1 */
  guint32 global_lines;     /* lines of PROC -1 */
  GStringChunk *text;
} ViperPiclGenTrace;

void viper_picl_gen_options_init (ViperPiclGenOptions *o);
/* NULL with error when the options make no sense (fewer than 2 processors, ...). */
ViperPiclGenTrace *viper_picl_gen (const ViperPiclGenOptions *o, GError **error);
void viper_picl_gen_free (ViperPiclGenTrace *t);

/* Redeliver: a new random interleaving (each processor's order kept), or
 * true-time order; message line positions follow. */
void viper_picl_gen_redeliver (ViperPiclGenTrace *t, ViperPiclDelivery d, guint64 seed);

/* The trace, one line each with '\n'. */
void viper_picl_gen_write (const ViperPiclGenTrace *t, GString *out);
/* JSON: procs, lines, proc_lines[], global_lines, messages[{src,dest,tag,send,recv}]
 * (send/recv are 0-based positions among the trace's lines). */
void viper_picl_gen_write_truth (const ViperPiclGenTrace *t, GString *out);

G_END_DECLS
