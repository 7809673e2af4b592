/* picl-gen-lib.c - random, deadlock-free PICL message-passing traces.
 *
 * Generation happens in four steps.
 *
 * 1. Messages first: M random (src, dest, tag) triples.  Send i takes place
 *    i of a global order; its receive a random number of places later (but
 *    after every earlier receive on the same channel, which stays FIFO), so
 *    a processor may take messages of different tags or sources in another
 *    order than they were sent.  Global barriers sit at random places.  Each
 *    processor's program is its subsequence of the global order.  Sends are
 *    buffered (they never wait for the receiver), so the program cannot
 *    deadlock: by induction along the global order every call before a
 *    receive completes, its send included, and every processor reaches each
 *    barrier.
 * 2. Sends then move earlier, past receives only (never past another send,
 *    so each channel keeps its order, nor past a barrier): moving a send
 *    earlier can only make its receiver wait less, and it is what makes
 *    messages cross (A sends to B and B to A before either receives).
 * 3. Non-blocking calls: a send may become post + later wait; a receive may
 *    become a post placed up to two send-side calls earlier + the wait at the
 *    receive's place.  Receive ends keep the per-channel order, so the k-th
 *    send on a channel is received by the k-th receive end, as PICL assumes.
 * 4. A true-time simulation executes the programs: a receive ends no earlier
 *    than its message's send plus a latency, a barrier ends after the last
 *    processor arrives.  Each event is stamped with its processor's clock
 *    (offset + (1 + drift) * t + jitter) unless true time is asked for.  If
 *    the simulation ever stops with calls left, step 1-3 broke their promise:
 *    that is a bug, and it aborts.
 *
 * Delivery is either true-time order or a random interleaving that keeps each
 * processor's order (a uniformly random merge: at each step the next line
 * comes from a processor chosen with probability proportional to its
 * remaining lines).
 */
#include <math.h>
#include <string.h>
#include "picl-gen-lib.h"

typedef enum {
  OP_SEND, OP_ISEND, OP_SEND_WAIT, OP_RECV, OP_IRECV_POST, OP_RECV_WAIT, OP_BARRIER, OP_NOTE,
  OP_WAITALL,               /* a receive wait and the send waits still pending, begun and ended together */
  OP_COLL,                  /* msg = index of the collective */
} OpKind;

typedef struct {
  guint8 kind;
  gint32 msg;
  gint32 req;
  gint32 extra_at, n_extra; /* OP_WAITALL: its send-wait requests in Gen.extras */
} Op;

/* A collective of the COMMON contract's table over subset 2 (all, shuffled)
 * or 3 (a random part), at one place of the global order. */
typedef struct {
  gint64 ev, subset, root;
  guint32 bytes;
} Coll;

typedef struct {
  gint64 src, dest, tag;
  gboolean nb_send, nb_recv, any_source;
  guint32 bytes;
  gboolean sent;
  double sent_at;
} Msg;

typedef struct {
  const ViperPiclGenOptions *o;
  GRand *rand;
  ViperPiclGenTrace *trace;
  GArray **ops;             /* per processor, of Op */
  Msg *msgs;
  GArray **lines;           /* per processor, of ViperPiclGenLine */
  double *offset, *drift;
  GString *scratch;
  GArray *colls;            /* of Coll */
  GArray *subsets[4];       /* members (guint) of subsets 2 and 3, in their order */
  GArray *extras;           /* gint32 requests of the waitalls */
  gint32 *at_coll;          /* per processor: the collective it is in, or -1 */
  double *coll_begin;       /* per processor: when it began it */
} Gen;

void
viper_picl_gen_options_init (ViperPiclGenOptions *o)
{
  memset (o, 0, sizeof *o);
  o->procs = 4;
  o->messages = 40;
  o->seed = 1;
  o->tags = 3;
  o->p_nonblocking = 0.3;
  o->p_anysource = 0.2;
  o->p_hoist = 0.5;
  o->p_delay = 0.4;
  o->barriers = 1;
  o->p_note = 0.05;
  o->offset = 1e-3;
  o->drift = 1e-4;
  o->jitter = 2e-6;
  o->latency = 2e-5;
  o->compute = 1e-4;
  o->true_time = FALSE;
  o->delivery = VIPER_PICL_DELIVERY_SHUFFLED;
}

static double
uniform (Gen *g, double lo, double hi)
{
  return lo + (hi - lo) * g_rand_double (g->rand);
}

static double
exponential (Gen *g, double mean)
{
  return -mean * log (1.0 - g_rand_double (g->rand));
}

static gboolean
chance (Gen *g, double p)
{
  return p > 0 && g_rand_double (g->rand) < p;
}

static GRand *
rand_for (guint64 seed, guint32 stream)
{
  guint32 s[3] = { (guint32) seed, (guint32) (seed >> 32), stream };
  return g_rand_new_with_seed_array (s, 3);
}

/* ---- steps 1 to 3: the programs -------------------------------------------- */

static void
push_op (GArray *a, OpKind kind, gint32 msg, gint32 req)
{
  Op op = { (guint8) kind, msg, req, 0, 0 };
  g_array_append_val (a, op);
}

static gboolean
in_subset (const GArray *members, guint p)
{
  for (guint i = 0; i < members->len; i++)
    if (g_array_index (members, guint, i) == p)
      return TRUE;
  return FALSE;
}

/* Subsets 2 (every processor, in a random order) and 3 (a random part of
 * at least two) and the collectives over them. */
static void
build_collectives (Gen *g)
{
  guint P = g->o->procs;
  static const gint64 kinds[] = { -402, -782, -783, -784, -785, -786, -787, -790, -791, -792 };
  for (guint s = 2; s <= 3; s++)
    {
      GArray *a = g->subsets[s] = g_array_new (FALSE, FALSE, sizeof (guint));
      for (guint p = 0; p < P; p++)
        if (s == 2 || chance (g, 0.6))
          g_array_append_val (a, p);
      while (a->len < 2)
        {
          guint p = (guint) g_rand_int_range (g->rand, 0, (gint32) P);
          if (!in_subset (a, p))
            g_array_append_val (a, p);
        }
      for (guint i = a->len - 1; i > 0; i--)
        {
          guint j = (guint) g_rand_int_range (g->rand, 0, (gint32) i + 1);
          guint tmp = g_array_index (a, guint, i);
          g_array_index (a, guint, i) = g_array_index (a, guint, j);
          g_array_index (a, guint, j) = tmp;
        }
    }
  for (guint c = 0; c < g->o->collectives; c++)
    {
      Coll k = { kinds[g_rand_int_range (g->rand, 0, G_N_ELEMENTS (kinds))], 2 + g_rand_int_range (g->rand, 0, 2), -1,
                 (guint32) g_rand_int_range (g->rand, 4, 4097) };
      const GArray *m = g->subsets[k.subset];
      k.root = g_array_index (m, guint, g_rand_int_range (g->rand, 0, (gint32) m->len));
      g_array_append_val (g->colls, k);
    }
}

/* A call in the global order of step 1. */
typedef struct {
  double pos;
  guint order;              /* creation order: ties keep it */
  guint8 kind;
  gint32 msg;
  guint proc;
} Event;

static gint
cmp_event (gconstpointer a, gconstpointer b)
{
  const Event *x = a, *y = b;
  if (x->pos != y->pos)
    return x->pos < y->pos ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

static gint
cmp_uint (gconstpointer a, gconstpointer b)
{
  guint x = *(const guint *) a, y = *(const guint *) b;
  return x < y ? -1 : x > y;
}

static void
build_programs (Gen *g)
{
  const ViperPiclGenOptions *o = g->o;
  guint P = o->procs, M = o->messages;
  for (guint i = 0; i < M; i++)
    {
      Msg *m = &g->msgs[i];
      m->src = g_rand_int_range (g->rand, 0, (gint32) P);
      m->dest = g_rand_int_range (g->rand, 0, (gint32) P - 1);
      if (m->dest >= m->src)
        m->dest++;
      m->tag = g_rand_int_range (g->rand, 0, (gint32) MAX (o->tags, 1));
      m->nb_send = chance (g, o->p_nonblocking);
      m->nb_recv = chance (g, o->p_nonblocking);
      m->any_source = chance (g, o->p_anysource);
      m->bytes = (guint32) g_rand_int_range (g->rand, 4, 4097);
    }
  guint *bar = g_new (guint, o->barriers + 1);
  for (guint b = 0; b < o->barriers; b++)
    bar[b] = (guint) g_rand_int_range (g->rand, 0, (gint32) M + 1);
  qsort (bar, o->barriers, sizeof *bar, cmp_uint);

  /* step 1: the global order.  Send i sits at 4i; its receive at
   * 4(i + delay) + 1, but never before an earlier receive of the same
   * channel (FIFO); barrier b just before the send it precedes. */
  GArray *events = g_array_sized_new (FALSE, FALSE, sizeof (Event), 2 * M + (o->barriers + o->collectives) * P);
  GHashTable *last_recv = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  for (guint i = 0; i < M; i++)
    {
      const Msg *m = &g->msgs[i];
      Event s = { 4.0 * i, events->len, OP_SEND, (gint32) i, (guint) m->src };
      g_array_append_val (events, s);
      guint delay = 0;
      while (delay < 8 && chance (g, o->p_delay))
        delay++;
      double pos = 4.0 * (i + delay) + 1;
      gint64 key = (m->src << 42) ^ (m->dest << 21) ^ m->tag;
      double *last = g_hash_table_lookup (last_recv, &key);
      if (!last)
        {
          last = g_new (double, 1);
          g_hash_table_insert (last_recv, g_memdup2 (&key, sizeof key), last);
        }
      else if (pos < *last)
        pos = *last;
      *last = pos;
      Event r = { pos, events->len, OP_RECV, (gint32) i, (guint) m->dest };
      g_array_append_val (events, r);
    }
  g_hash_table_destroy (last_recv);
  for (guint c = 0; c < g->colls->len; c++)
    {
      double pos = 4.0 * g_rand_int_range (g->rand, 0, (gint32) M + 1) - 2;
      const GArray *m = g->subsets[g_array_index (g->colls, Coll, c).subset];
      for (guint i = 0; i < m->len; i++)
        {
          Event e = { pos, events->len, OP_COLL, (gint32) c, g_array_index (m, guint, i) };
          g_array_append_val (events, e);
        }
    }
  for (guint b = 0; b < o->barriers; b++)
    for (guint p = 0; p < P; p++)
      {
        Event e = { 4.0 * bar[b] - 1, events->len, OP_BARRIER, -1, p };
        g_array_append_val (events, e);
      }
  g_array_sort (events, cmp_event);
  GArray **base = g_new (GArray *, P);
  for (guint p = 0; p < P; p++)
    base[p] = g_array_new (FALSE, FALSE, sizeof (Op));
  for (guint k = 0; k < events->len; k++)
    {
      const Event *e = &g_array_index (events, Event, k);
      push_op (base[e->proc], (OpKind) e->kind, e->msg, -1);
    }
  g_array_unref (events);
  g_free (bar);

  /* step 2: sends move earlier past receives */
  for (guint p = 0; p < P; p++)
    {
      Op *ops = (Op *) base[p]->data;
      for (guint i = 0; i < base[p]->len; i++)
        {
          if (ops[i].kind != OP_SEND)
            continue;
          for (guint j = i; j > 0 && ops[j - 1].kind == OP_RECV && chance (g, o->p_hoist); j--)
            {
              Op tmp = ops[j - 1];
              ops[j - 1] = ops[j];
              ops[j] = tmp;
            }
        }
    }

  /* step 3: non-blocking calls and trace messages */
  for (guint p = 0; p < P; p++)
    {
      GArray *out = g->ops[p];
      gint32 next_req = 1;
      gint32 waits[64];
      gint32 wait_left[64];
      guint n_waits = 0;
      for (guint i = 0; i <= base[p]->len; i++)
        {
          const Op *op = i < base[p]->len ? &g_array_index (base[p], Op, i) : NULL;
          /* due send waits come first; a barrier or the end flushes them all */
          guint keep = 0;
          for (guint w = 0; w < n_waits; w++)
            if (!op || op->kind == OP_BARRIER || wait_left[w]-- <= 0)
              push_op (out, OP_SEND_WAIT, -1, waits[w]);
            else
              {
                waits[keep] = waits[w];
                wait_left[keep++] = wait_left[w];
              }
          n_waits = keep;
          if (!op)
            break;
          if (chance (g, o->p_note))
            push_op (out, OP_NOTE, -1, -1);
          const Msg *m = op->msg >= 0 ? &g->msgs[op->msg] : NULL;
          switch (op->kind)
            {
            case OP_SEND:
              if (m->nb_send && n_waits < G_N_ELEMENTS (waits))
                {
                  push_op (out, OP_ISEND, op->msg, next_req);
                  waits[n_waits] = next_req++;
                  wait_left[n_waits++] = g_rand_int_range (g->rand, 0, 3);
                }
              else
                push_op (out, OP_SEND, op->msg, -1);
              break;
            case OP_RECV:
              if (m->nb_recv)
                {
                  guint pos = out->len;
                  for (gint steps = g_rand_int_range (g->rand, 0, 3); steps > 0 && pos > 0; steps--, pos--)
                    {
                      guint8 k = g_array_index (out, Op, pos - 1).kind;
                      if (k != OP_SEND && k != OP_ISEND && k != OP_SEND_WAIT && k != OP_NOTE)
                        break;
                    }
                  Op post = { OP_IRECV_POST, op->msg, next_req, 0, 0 };
                  g_array_insert_val (out, pos, post);
                  if (n_waits > 0 && chance (g, o->p_waitall))
                    {
                      /* MPI_Waitall: this receive and the pending sends, waited for together */
                      Op all = { OP_WAITALL, op->msg, next_req++, (gint32) g->extras->len, (gint32) n_waits };
                      g_array_append_vals (g->extras, waits, n_waits);
                      n_waits = 0;
                      g_array_append_val (out, all);
                    }
                  else
                    push_op (out, OP_RECV_WAIT, op->msg, next_req++);
                }
              else
                push_op (out, OP_RECV, op->msg, -1);
              break;
            default:
              push_op (out, op->kind, op->msg, op->req);
              break;
            }
        }
      g_array_unref (base[p]);
    }
  g_free (base);
}

/* ---- step 4: the true-time simulation -------------------------------------- */

static void G_GNUC_PRINTF (6, 7)
emit (Gen *g, gint64 proc, double t, gint32 msg, ViperPiclLineRole role, const char *fmt, ...)
{
  /* fmt is the whole line with "@" where TIME goes */
  double stamp = t;
  if (!g->o->true_time && proc >= 0)
    stamp = g->offset[proc] + t * (1.0 + g->drift[proc]) + (g->o->jitter > 0 ? uniform (g, 0, g->o->jitter) : 0);
  va_list ap;
  va_start (ap, fmt);
  g_string_vprintf (g->scratch, fmt, ap);
  va_end (ap);
  char num[48];
  g_snprintf (num, sizeof num, "%.9f", stamp);
  g_string_replace (g->scratch, "@", num, 1);
  GArray *lines = proc >= 0 ? g->lines[proc] : g->lines[g->o->procs];
  ViperPiclGenLine l = {
    .text = g_string_chunk_insert_len (g->trace->text, g->scratch->str, (gssize) g->scratch->len),
    .proc = proc,
    .index = lines->len,
    .message = msg,
    .role = (guint8) role,
    .true_time = t,
  };
  g_array_append_val (lines, l);
}

/* Execute processor p as far as it can go; returns TRUE if it moved. */
static gboolean
step_proc (Gen *g, guint p, guint *pc, double *now, gboolean *in_call, gboolean *at_barrier)
{
  const ViperPiclGenOptions *o = g->o;
  gboolean moved = FALSE;
  GArray *ops = g->ops[p];
  gint64 P = p;
  while (pc[p] < ops->len)
    {
      const Op *op = &g_array_index (ops, Op, pc[p]);
      Msg *m = op->msg >= 0 ? &g->msgs[op->msg] : NULL;
      if (!in_call[p])
        now[p] += exponential (g, o->compute) + 1e-7;
      switch (op->kind)
        {
        case OP_SEND:
        case OP_ISEND:
          {
            gint64 ev = op->kind == OP_SEND ? -21 : -27;
            emit (g, P, now[p], op->msg, VIPER_PICL_LINE_SEND, "-3 %" G_GINT64_FORMAT " @ %u 0 4 2 %u %" G_GINT64_FORMAT
                  " %" G_GINT64_FORMAT " 0", ev, p, m->bytes, m->tag, m->dest);
            m->sent = TRUE;
            m->sent_at = now[p];
            now[p] += m->bytes * 1e-10 + 1e-7;
            if (op->kind == OP_SEND)
              emit (g, P, now[p], -1, VIPER_PICL_LINE_OTHER, "-4 -21 @ %u 0 0", p);
            else
              emit (g, P, now[p], -1, VIPER_PICL_LINE_OTHER, "-4 -27 @ %u 0 1 2 %d", p, op->req);
            break;
          }
        case OP_SEND_WAIT:
          emit (g, P, now[p], -1, VIPER_PICL_LINE_OTHER, "-3 -31 @ %u 0 1 2 %d", p, op->req);
          now[p] += 1e-7;
          emit (g, P, now[p], -1, VIPER_PICL_LINE_OTHER, "-4 -31 @ %u 0 0", p);
          break;
        case OP_IRECV_POST:
          emit (g, P, now[p], -1, VIPER_PICL_LINE_OTHER, "-3 -57 @ %u 0 3 2 %" G_GINT64_FORMAT " %" G_GINT64_FORMAT " 0",
                p, m->tag, m->any_source ? (gint64) -1 : m->src);
          now[p] += 1e-7;
          emit (g, P, now[p], -1, VIPER_PICL_LINE_OTHER, "-4 -57 @ %u 0 1 2 %d", p, op->req);
          break;
        case OP_RECV:
        case OP_RECV_WAIT:
          if (!in_call[p])
            {
              if (op->kind == OP_RECV)
                emit (g, P, now[p], -1, VIPER_PICL_LINE_OTHER, "-3 -52 @ %u 0 3 2 %" G_GINT64_FORMAT " %" G_GINT64_FORMAT
                      " 0", p, m->tag, m->any_source ? (gint64) -1 : m->src);
              else
                emit (g, P, now[p], -1, VIPER_PICL_LINE_OTHER, "-3 -61 @ %u 0 1 2 %d", p, op->req);
              in_call[p] = TRUE;
              moved = TRUE;
            }
          if (!m->sent)
            return moved;
          {
            double arrive = m->sent_at + o->latency * (0.5 + g_rand_double (g->rand));
            now[p] = MAX (now[p] + 1e-7, arrive);
            emit (g, P, now[p], op->msg, VIPER_PICL_LINE_RECV_END, "-4 %d @ %u 0 4 2 %u %" G_GINT64_FORMAT " %"
                  G_GINT64_FORMAT " 0", op->kind == OP_RECV ? -52 : -61, p, m->bytes, m->tag, m->src);
          }
          break;
        case OP_WAITALL:
          if (!in_call[p])
            {
              emit (g, P, now[p], -1, VIPER_PICL_LINE_OTHER, "-3 -61 @ %u 0 1 2 %d", p, op->req);
              for (gint32 k = 0; k < op->n_extra; k++)
                emit (g, P, now[p], -1, VIPER_PICL_LINE_OTHER, "-3 -31 @ %u 0 1 2 %d", p,
                      g_array_index (g->extras, gint32, op->extra_at + k));
              in_call[p] = TRUE;
              moved = TRUE;
            }
          if (!m->sent)
            return moved;
          {
            double arrive = m->sent_at + o->latency * (0.5 + g_rand_double (g->rand));
            now[p] = MAX (now[p] + 1e-7, arrive);
            emit (g, P, now[p], op->msg, VIPER_PICL_LINE_RECV_END, "-4 -61 @ %u 0 4 2 %u %" G_GINT64_FORMAT " %"
                  G_GINT64_FORMAT " 0", p, m->bytes, m->tag, m->src);
            for (gint32 k = 0; k < op->n_extra; k++)
              emit (g, P, now[p], -1, VIPER_PICL_LINE_OTHER, "-4 -31 @ %u 0 0", p);
          }
          break;
        case OP_COLL:
          if (!in_call[p])
            {
              const Coll *c = &g_array_index (g->colls, Coll, op->msg);
              if (c->ev == -402)
                emit (g, P, now[p], -1, VIPER_PICL_LINE_OTHER, "-3 -402 @ %u 0 1 2 %" G_GINT64_FORMAT, p, c->subset);
              else if (c->ev == -785 || c->ev == -786 || c->ev == -787 || c->ev == -790)
                emit (g, P, now[p], -1, VIPER_PICL_LINE_OTHER, "-3 %" G_GINT64_FORMAT " @ %u 0 3 2 %u %" G_GINT64_FORMAT
                      " %" G_GINT64_FORMAT, c->ev, p, c->bytes, c->root, c->subset);
              else
                emit (g, P, now[p], -1, VIPER_PICL_LINE_OTHER, "-3 %" G_GINT64_FORMAT " @ %u 0 2 2 %u %" G_GINT64_FORMAT,
                      c->ev, p, c->bytes, c->subset);
              in_call[p] = TRUE;
              g->at_coll[p] = op->msg;
              g->coll_begin[p] = now[p];
              moved = TRUE;
            }
          return moved;             /* released by the caller when every member is there */
        case OP_BARRIER:
          if (!in_call[p])
            {
              emit (g, P, now[p], -1, VIPER_PICL_LINE_OTHER, "-3 -402 @ %u 0 1 2 1", p);
              in_call[p] = TRUE;
              at_barrier[p] = TRUE;
              moved = TRUE;
            }
          return moved;             /* released by the caller when everyone is there */
        case OP_NOTE:
          {
            char word[24];
            g_snprintf (word, sizeof word, "step%u", pc[p]);
            emit (g, P, now[p], -1, VIPER_PICL_LINE_OTHER, "-3 -911 @ %u 0 2 \"%%d %%s\" %zu %s", p, strlen (word), word);
            now[p] += 1e-7;
            emit (g, P, now[p], -1, VIPER_PICL_LINE_OTHER, "-4 -911 @ %u 0 0", p);
            break;
          }
        default:
          g_assert_not_reached ();
        }
      in_call[p] = FALSE;
      pc[p]++;
      moved = TRUE;
    }
  return moved;
}

/* Every member of a collective is in it: the ends, by shape. */
static gboolean
release_collectives (Gen *g, guint *pc, double *now, gboolean *in_call)
{
  guint P = g->o->procs;
  gboolean moved = FALSE;
  for (guint p = 0; p < P; p++)
    {
      gint32 c = g->at_coll[p];
      if (c < 0)
        continue;
      const Coll *k = &g_array_index (g->colls, Coll, c);
      const GArray *mem = g->subsets[k->subset];
      gboolean all = TRUE;
      for (guint i = 0; i < mem->len && all; i++)
        all = g->at_coll[g_array_index (mem, guint, i)] == c;
      if (!all)
        continue;
      double *end = g_new (double, mem->len);
      double every = 0, prefix = 0, root_at = g->coll_begin[k->root];
      for (guint i = 0; i < mem->len; i++)
        every = MAX (every, g->coll_begin[g_array_index (mem, guint, i)]);
      for (guint i = 0; i < mem->len; i++)
        {
          guint q = g_array_index (mem, guint, i);
          double own = g->coll_begin[q];
          prefix = MAX (prefix, own);
          switch (k->ev)
            {
            case -785: case -787: end[i] = MAX (own, root_at); break;
            case -786: case -790: end[i] = (gint64) q == k->root ? every : own; break;
            case -792: end[i] = prefix; break;
            default: end[i] = every; break;
            }
          end[i] += 1e-6;
        }
      for (guint i = 0; i < mem->len; i++)
        {
          guint q = g_array_index (mem, guint, i);
          now[q] = end[i];
          if (k->ev == -402)
            emit (g, q, now[q], -1, VIPER_PICL_LINE_OTHER, "-4 -402 @ %u 0 0", q);
          else if (k->ev == -782)
            emit (g, q, now[q], -1, VIPER_PICL_LINE_OTHER, "-4 -782 @ %u 0 1 2 %" G_GINT64_FORMAT, q, k->subset);
          else
            emit (g, q, now[q], -1, VIPER_PICL_LINE_OTHER, "-4 %" G_GINT64_FORMAT " @ %u 0 1 2 %d", k->ev, q,
                  k->ev == -790 && (gint64) q != k->root ? -1 : (gint) k->bytes);
          g->at_coll[q] = -1;
          in_call[q] = FALSE;
          pc[q]++;
        }
      g_free (end);
      moved = TRUE;
    }
  return moved;
}

static void
simulate (Gen *g)
{
  guint P = g->o->procs;
  guint *pc = g_new0 (guint, P);
  double *now = g_new0 (double, P);
  gboolean *in_call = g_new0 (gboolean, P);
  gboolean *at_barrier = g_new0 (gboolean, P);

  if (g->o->barriers > 0)
    {
      GString *def = g_string_new (NULL);
      g_string_printf (def, "-202 -812 @ -1 -1 %u 2 1", P + 1);
      for (guint p = 0; p < P; p++)
        g_string_append_printf (def, " %u", p);
      emit (g, -1, 0.0, -1, VIPER_PICL_LINE_OTHER, "%s", def->str);
      g_string_free (def, TRUE);
    }
  for (guint sub = 2; g->o->collectives > 0 && sub <= 3; sub++)
    {
      /* written twice, as every member's file carries its own copy */
      GString *def = g_string_new (NULL);
      const GArray *mem = g->subsets[sub];
      g_string_printf (def, "-202 -812 @ -1 -1 %u 2 %u", mem->len + 1, sub);
      for (guint i = 0; i < mem->len; i++)
        g_string_append_printf (def, " %u", g_array_index (mem, guint, i));
      emit (g, -1, 0.0, -1, VIPER_PICL_LINE_OTHER, "%s", def->str);
      emit (g, -1, 0.0, -1, VIPER_PICL_LINE_OTHER, "%s", def->str);
      g_string_free (def, TRUE);
    }
  for (guint p = 0; p < P; p++)
    {
      now[p] = uniform (g, 0, g->o->compute);
      emit (g, p, now[p], -1, VIPER_PICL_LINE_OTHER, "-3 -901 @ %u 0 0", p);
    }
  for (;;)
    {
      gboolean moved = FALSE;
      for (guint p = 0; p < P; p++)
        moved |= step_proc (g, p, pc, now, in_call, at_barrier);
      guint arrived = 0;
      double last = 0;
      for (guint p = 0; p < P; p++)
        if (at_barrier[p])
          {
            arrived++;
            last = MAX (last, now[p]);
          }
      if (arrived == P)
        {
          for (guint p = 0; p < P; p++)
            {
              now[p] = last + 1e-6;
              emit (g, p, now[p], -1, VIPER_PICL_LINE_OTHER, "-4 -402 @ %u 0 0", p);
              at_barrier[p] = in_call[p] = FALSE;
              pc[p]++;
            }
          moved = TRUE;
        }
      moved |= release_collectives (g, pc, now, in_call);
      if (!moved)
        break;
    }
  for (guint p = 0; p < P; p++)
    {
      if (pc[p] < g->ops[p]->len)
        g_error ("picl-gen: the generated program deadlocks (seed %" G_GUINT64_FORMAT ", proc %u)", g->o->seed, p);
      now[p] += exponential (g, g->o->compute) + 1e-7;
      emit (g, p, now[p], -1, VIPER_PICL_LINE_OTHER, "-4 -901 @ %u 0 0", p);
    }
  g_free (pc);
  g_free (now);
  g_free (in_call);
  g_free (at_barrier);
}

/* ---- delivery -------------------------------------------------------------- */

static gint
cmp_true_time (gconstpointer a, gconstpointer b)
{
  const ViperPiclGenLine *x = a, *y = b;
  if (x->true_time != y->true_time)
    return x->true_time < y->true_time ? -1 : 1;
  if (x->proc != y->proc)
    return x->proc < y->proc ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

static gint
cmp_proc_index (gconstpointer a, gconstpointer b)
{
  const ViperPiclGenLine *x = a, *y = b;
  if (x->proc != y->proc)
    return x->proc < y->proc ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

void
viper_picl_gen_redeliver (ViperPiclGenTrace *t, ViperPiclDelivery d, guint64 seed)
{
  GArray *lines = t->lines;
  if (d == VIPER_PICL_DELIVERY_INORDER)
    g_array_sort (lines, cmp_true_time);
  else
    {
      /* processors' lines one after the other (PROC -1 first), then merge */
      g_array_sort (lines, cmp_proc_index);
      guint streams = t->procs + 1;
      guint *start = g_new0 (guint, streams + 1);
      for (guint i = 0; i < lines->len; i++)
        start[g_array_index (lines, ViperPiclGenLine, i).proc + 2]++;
      for (guint s = 1; s <= streams; s++)
        start[s] += start[s - 1];
      guint *next = g_memdup2 (start, sizeof (guint) * streams);
      GArray *out = g_array_sized_new (FALSE, FALSE, sizeof (ViperPiclGenLine), lines->len);
      GRand *r = rand_for (seed, 0x5eed);
      for (guint left = lines->len; left > 0; left--)
        {
          guint pick = (guint) g_rand_int_range (r, 0, (gint32) left);
          guint s = 0;
          while (pick >= start[s + 1] - next[s])
            {
              pick -= start[s + 1] - next[s];
              s++;
            }
          g_array_append_val (out, g_array_index (lines, ViperPiclGenLine, next[s]));
          next[s]++;
        }
      g_rand_free (r);
      g_free (start);
      g_free (next);
      g_array_unref (lines);
      t->lines = lines = out;
    }
  for (guint i = 0; i < lines->len; i++)
    {
      const ViperPiclGenLine *l = &g_array_index (lines, ViperPiclGenLine, i);
      if (l->role == VIPER_PICL_LINE_SEND)
        g_array_index (t->messages, ViperPiclGenMessage, l->message).send_line = i;
      else if (l->role == VIPER_PICL_LINE_RECV_END)
        g_array_index (t->messages, ViperPiclGenMessage, l->message).recv_line = i;
    }
}

/* ---- public ---------------------------------------------------------------- */

ViperPiclGenTrace *
viper_picl_gen (const ViperPiclGenOptions *o, GError **error)
{
  if (o->procs < 2 || o->procs > 1u << 20)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--procs must be between 2 and %u", 1u << 20);
      return NULL;
    }
  if (o->messages > 1u << 26)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--messages must be at most %u", 1u << 26);
      return NULL;
    }
  if (o->barriers > 1u << 26 || o->collectives > 1u << 26)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--barriers and --collectives must be at most %u",
                   1u << 26);
      return NULL;
    }
  /* the option names of viper-picl-gen, which reports these as usage errors */
  const struct { const char *name; double v; } chances[] = {
    { "nonblocking", o->p_nonblocking }, { "anysource", o->p_anysource }, { "crossing", o->p_hoist },
    { "reorder", o->p_delay }, { "waitall", o->p_waitall }, { "notes", o->p_note },
  };
  for (guint i = 0; i < G_N_ELEMENTS (chances); i++)
    if (!(chances[i].v >= 0 && chances[i].v <= 1))
      {
        g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                     "--%s=%g: a chance must be between 0 and 1", chances[i].name, chances[i].v);
        return NULL;
      }
  const struct { const char *name; double v, max; } spans[] = {
    { "offset", o->offset, 1e6 }, { "drift", o->drift, 0.5 }, { "jitter", o->jitter, 1e6 },
    { "latency", o->latency, 1e6 }, { "compute", o->compute, 1e6 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (spans); i++)
    if (!(spans[i].v >= 0 && spans[i].v < spans[i].max))
      {
        g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--%s=%g: must be >= 0 and below %g",
                     spans[i].name, spans[i].v, spans[i].max);
        return NULL;
      }
  ViperPiclGenTrace *t = g_new0 (ViperPiclGenTrace, 1);
  t->procs = o->procs;
  t->text = g_string_chunk_new (64 * 1024);
  t->messages = g_array_sized_new (FALSE, TRUE, sizeof (ViperPiclGenMessage), o->messages);
  t->proc_lines = g_new0 (guint32, o->procs);

  Gen g = { .o = o, .trace = t };
  g.rand = rand_for (o->seed, 0);
  g.ops = g_new (GArray *, o->procs);
  g.lines = g_new (GArray *, o->procs + 1);
  for (guint p = 0; p <= o->procs; p++)
    g.lines[p] = g_array_new (FALSE, FALSE, sizeof (ViperPiclGenLine));
  g.offset = g_new (double, o->procs);
  g.drift = g_new (double, o->procs);
  for (guint p = 0; p < o->procs; p++)
    {
      g.ops[p] = g_array_new (FALSE, FALSE, sizeof (Op));
      g.offset[p] = uniform (&g, -o->offset, o->offset);
      g.drift[p] = uniform (&g, -o->drift, o->drift);
    }
  g.msgs = g_new0 (Msg, MAX (o->messages, 1));
  g.scratch = g_string_sized_new (128);
  g.colls = g_array_new (FALSE, FALSE, sizeof (Coll));
  g.extras = g_array_new (FALSE, FALSE, sizeof (gint32));
  g.at_coll = g_new (gint32, o->procs);
  for (guint p = 0; p < o->procs; p++)
    g.at_coll[p] = -1;
  g.coll_begin = g_new0 (double, o->procs);
  if (o->collectives > 0)
    build_collectives (&g);

  build_programs (&g);
  simulate (&g);

  for (guint i = 0; i < o->messages; i++)
    {
      ViperPiclGenMessage m = { g.msgs[i].src, g.msgs[i].dest, g.msgs[i].tag, 0, 0 };
      g_array_append_val (t->messages, m);
    }
  guint total = 0;
  for (guint p = 0; p <= o->procs; p++)
    total += g.lines[p]->len;
  t->lines = g_array_sized_new (FALSE, FALSE, sizeof (ViperPiclGenLine), total);
  for (guint p = 0; p <= o->procs; p++)
    {
      g_array_append_vals (t->lines, g.lines[p]->data, g.lines[p]->len);
      if (p < o->procs)
        t->proc_lines[p] = g.lines[p]->len;
      else
        t->global_lines = g.lines[p]->len;
      g_array_unref (g.lines[p]);
    }
  viper_picl_gen_redeliver (t, o->delivery, o->seed);

  for (guint p = 0; p < o->procs; p++)
    g_array_unref (g.ops[p]);
  g_free (g.ops);
  g_free (g.lines);
  g_free (g.offset);
  g_free (g.drift);
  g_free (g.msgs);
  g_string_free (g.scratch, TRUE);
  g_array_unref (g.colls);
  g_array_unref (g.extras);
  for (guint k = 0; k < G_N_ELEMENTS (g.subsets); k++)
    if (g.subsets[k])
      g_array_unref (g.subsets[k]);
  g_free (g.at_coll);
  g_free (g.coll_begin);
  g_rand_free (g.rand);
  return t;
}

void
viper_picl_gen_free (ViperPiclGenTrace *t)
{
  if (!t)
    return;
  g_array_unref (t->lines);
  g_array_unref (t->messages);
  g_free (t->proc_lines);
  g_string_chunk_free (t->text);
  g_free (t);
}

void
viper_picl_gen_write (const ViperPiclGenTrace *t, GString *out)
{
  for (guint i = 0; i < t->lines->len; i++)
    {
      g_string_append (out, g_array_index (t->lines, ViperPiclGenLine, i).text);
      g_string_append_c (out, '\n');
    }
}

void
viper_picl_gen_write_truth (const ViperPiclGenTrace *t, GString *out)
{
  g_string_append_printf (out, "{\n  \"procs\": %u,\n  \"lines\": %u,\n  \"proc_lines\": [", t->procs, t->lines->len);
  for (guint p = 0; p < t->procs; p++)
    g_string_append_printf (out, "%s%u", p ? ", " : "", t->proc_lines[p]);
  g_string_append_printf (out, "],\n  \"global_lines\": %u,\n  \"messages\": [", t->global_lines);
  for (guint i = 0; i < t->messages->len; i++)
    {
      const ViperPiclGenMessage *m = &g_array_index (t->messages, ViperPiclGenMessage, i);
      g_string_append_printf (out, "%s\n    {\"src\": %" G_GINT64_FORMAT ", \"dest\": %" G_GINT64_FORMAT
                              ", \"tag\": %" G_GINT64_FORMAT ", \"send\": %u, \"recv\": %u}",
                              i ? "," : "", m->src, m->dest, m->tag, m->send_line, m->recv_line);
    }
  g_string_append (out, t->messages->len ? "\n  ]\n}\n" : "]\n}\n");
}
