/* monalisa-export.c - Mona Lisa runs for ParaGraph, Pajé and Chrome.
 *
 * ParaGraph (thesis 5.4.3, which its authors left undone).  ParaGraph knows
 * processors that send and receive messages, so a Mona Lisa module M becomes
 * the two processes it really is (spec monalisa.md section 1), each a PICL
 * processor: the application process 2M and the supervisor 2M+1.  Every
 * request and reply of a primitive becomes a blocking PICL send / receive
 * pair between the right processors, tagged with the Mona Lisa event type of
 * its tram so that each channel (SRC, DEST, TAG) is unambiguous and FIFO like
 * Mona Lisa's own channels:
 *
 *   caller C START (2,x)      app 2C sends the request (tag x) to supervisor 2P+1,
 *                             then posts a blocking receive for the reply
 *                             (inrglb: one request to every instance, receive from any)
 *   partner P (4,x) request   supervisor 2P+1 receives it: its receive began when it
 *                             was last active (it waits for requests between them)
 *   partner P (5,y) reply     supervisor 2P+1 sends the reply (tag y) to app 2C
 *   caller C (4,y) reply      app 2C's receive ends: the data have arrived
 *   caller C (5,20) ack       app 2C sends the ack to every instance but the one that
 *                             replied; the instances drop it untraced, so it is never received
 *   blocked exposeglb         app 2M posts a receive from its own supervisor at (2,13);
 *                             the supervisor's notice (tag 13) ends it at (3,13)
 *
 * So a blocked period is a receive wait: ParaGraph shows the application
 * idle from the block's start until the message it waits for is sent, and
 * communicating until it arrives.  The application is idle while its
 * supervisor works for it: in a primitive it waits for the partner's
 * supervisor, in a blocked exposeglb for its own supervisor to hand the value
 * out; the supervisor's own work (receive a request, send the reply) takes no
 * trace time.  Messages (sends) per primitive: inglb, rdglb, wrglb 2; inrglb
 * over n instances 2n (n requests, 1 reply, n-1 acks); a blocked exposeglb 1.
 * Received are all but the acks.  Every record carries the adjusted time of
 * the tram it comes from; the merge sorts them with one source per PICL
 * processor (a module's trams have non-decreasing adjusted times, and the
 * supervisor's receive begin is dated at its own last record, which the merge
 * has not passed).  The application stops tracing at (1,11); the supervisor
 * outlives it.
 *
 * Pajé and Chrome: a track per module in its model state (inactive,
 * executing, interacting, blocked), a link / flow per request and reply from
 * the sending tram to the receiving one, instants for exposes and hides, and
 * the program state (running, deadlock, abnormal, terminated) as program
 * events.
 */
#include "monalisa.h"
#include "monalisa-export.h"

#define MAX_MEMBERS 4096
#define CTL_BYTES 8           /* a request or reply without data */
#define ELEM_BYTES 8          /* per element of a slice that travels */

/* A module as the timeline has it at the time being written (write-time
 * states): what the program state depends on. */
typedef struct {
  guint state;
  ViperMonalisaPrim prim;
  gint64 waits_on;
  gboolean exists, started, finished;
} Mirror;

typedef struct {
  GHashTable *seen;           /* modules whose processors started tracing */
  GHashTable *replier;        /* module -> the instance that answered its inrglb */
  gint64 members[MAX_MEMBERS];
  const ViperModel *model;
  GArray *mirror;             /* of Mirror, index = module (timeline) */
  GArray *in;                 /* of gboolean: program_at's scratch */
  ViperMonalisaProgramState reported;   /* the verdict written so far (INACTIVE: none) */
} MlExport;

static void
ml_export_clear (gpointer priv)
{
  MlExport *x = priv;
  if (x->seen)
    g_hash_table_unref (x->seen);
  if (x->replier)
    g_hash_table_unref (x->replier);
  if (x->mirror)
    g_array_unref (x->mirror);
  if (x->in)
    g_array_unref (x->in);
}

static MlExport *
ml_priv (ViperExporter *e)
{
  MlExport *x = viper_exporter_priv (e);
  if (!x->seen)
    {
      x->seen = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
      x->replier = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
      x->mirror = g_array_new (FALSE, TRUE, sizeof (Mirror));
      x->in = g_array_new (FALSE, TRUE, sizeof (gboolean));
    }
  return x;
}

static gboolean
first_sight (MlExport *x, gint64 module)
{
  if (g_hash_table_contains (x->seen, &module))
    return FALSE;
  g_hash_table_add (x->seen, g_memdup2 (&module, sizeof module));
  return TRUE;
}

/* Members of a group (a module is its own group). */
static guint
members (MlExport *x, const ViperModel *m, gint64 group)
{
  guint n = 0;
  if (m->paradigm && m->paradigm->group_members)
    n = m->paradigm->group_members (m, group, x->members, MAX_MEMBERS);
  if (n == 0)
    {
      x->members[0] = group;
      n = 1;
    }
  return n;
}

static gint64
data_bytes (const ViperMonalisaTram *d)
{
  /* sizes come from the trace: saturate rather than overflow */
  gint64 bytes = ELEM_BYTES;
  for (guint i = 0; i < d->n_dims; i++)
    if (__builtin_mul_overflow (bytes, MAX (d->size[i], 1), &bytes))
      return G_MAXINT64;
  return bytes;
}

/* ---- ParaGraph ---------------------------------------------------------------- */

#define APP(m) (2 * (m))
#define SUP(m) (2 * (m) + 1)
/* Module ids that have two ParaGraph processors (APP and SUP fit 64 bits);
 * larger ids come only from bad traces (the model reports them). */
#define PG_MODULE_OK(m) ((m) >= -1 && (m) < G_MAXINT64 / 2)

static void
pg_send (ViperExporter *e, gint64 from, gint64 to, gint64 tag, gint64 bytes, double t)
{
  viper_export_pushf (e, from, t, "-3 -21", "%" G_GINT64_FORMAT " 0 4 2 %" G_GINT64_FORMAT " %" G_GINT64_FORMAT
                      " %" G_GINT64_FORMAT " 0", from, bytes, tag, to);
  viper_export_pushf (e, from, t, "-4 -21", "%" G_GINT64_FORMAT " 0 0", from);
}

static void
pg_recv_begin (ViperExporter *e, gint64 at, gint64 tag, gint64 src, double t)
{
  viper_export_pushf (e, at, t, "-3 -52", "%" G_GINT64_FORMAT " 0 3 2 %" G_GINT64_FORMAT " %" G_GINT64_FORMAT " 0",
                      at, tag, src);
}

static void
pg_recv_end (ViperExporter *e, gint64 at, gint64 tag, gint64 src, gint64 bytes, double t)
{
  viper_export_pushf (e, at, t, "-4 -52", "%" G_GINT64_FORMAT " 0 4 2 %" G_GINT64_FORMAT " %" G_GINT64_FORMAT
                      " %" G_GINT64_FORMAT " 0", at, bytes, tag, src);
}

static void
ml_paragraph_begin (ViperExporter *e, const ViperModel *m)
{
  /* with a setup file the modules are known: hold the merge until each has begun */
  guint n = viper_monalisa_model_n_modules (m);
  for (guint i = 0; i < n; i++)
    {
      viper_export_expect_source (e, APP ((gint64) i));
      viper_export_expect_source (e, SUP ((gint64) i));
    }
}

static void
ml_paragraph (ViperExporter *e, const ViperTram *t, const ViperModel *m)
{
  ViperMonalisaTram d;
  gint64 M = t->proc;
  if (M < 0 || !PG_MODULE_OK (M) || !viper_monalisa_tram_decode (t, &d) || !PG_MODULE_OK (d.partner))
    return;
  MlExport *x = ml_priv (e);
  double T = t->adjusted;
  if (first_sight (x, M))
    {
      viper_export_pushf (e, APP (M), T, "-3 -901", "%" G_GINT64_FORMAT " 0 0", APP (M));
      viper_export_pushf (e, SUP (M), T, "-3 -901", "%" G_GINT64_FORMAT " 0 0", SUP (M));
    }
  gint64 P = d.partner;
  switch (d.type)
    {
    case VIPER_ML_T_DORMANT:
      viper_export_pushf (e, APP (M), T, "-4 -901", "%" G_GINT64_FORMAT " 0 0", APP (M));
      viper_export_source_done (e, APP (M));
      break;
    case VIPER_ML_T_EXPOSE_START:
      pg_recv_begin (e, APP (M), VIPER_ML_TAG_NOTICE, SUP (M), T);
      break;
    case VIPER_ML_T_EXPOSE_END:
      pg_send (e, SUP (M), APP (M), VIPER_ML_TAG_NOTICE, CTL_BYTES, T);
      pg_recv_end (e, APP (M), VIPER_ML_TAG_NOTICE, SUP (M), CTL_BYTES, T);
      break;
    case VIPER_ML_T_IN_START:
    case VIPER_ML_T_RD_START:
    case VIPER_ML_T_WR_START:
      pg_send (e, APP (M), SUP (P), t->ev, d.type == VIPER_ML_T_WR_START ? data_bytes (&d) : CTL_BYTES, T);
      pg_recv_begin (e, APP (M), t->ev + 1, SUP (P), T);
      break;
    case VIPER_ML_T_INR_START:
      {
        guint n = members (x, m, P);
        for (guint i = 0; i < n; i++)
          pg_send (e, APP (M), SUP (x->members[i]), t->ev, CTL_BYTES, T);
        pg_recv_begin (e, APP (M), VIPER_ML_EV_INRRP, -1, T);
        break;
      }
    case VIPER_ML_T_IN_RQ_RECV:
    case VIPER_ML_T_RD_RQ_RECV:
    case VIPER_ML_T_WR_RQ_RECV:
    case VIPER_ML_T_INR_RQ_RECV:
      {
        double since = viper_export_source_time (e, SUP (M));
        pg_recv_begin (e, SUP (M), -1, -1, since > T ? T : since);
        pg_recv_end (e, SUP (M), t->ev, APP (P), d.type == VIPER_ML_T_WR_RQ_RECV ? data_bytes (&d) : CTL_BYTES, T);
        break;
      }
    case VIPER_ML_T_IN_RP_SEND:
    case VIPER_ML_T_RD_RP_SEND:
    case VIPER_ML_T_WR_RP_SEND:
    case VIPER_ML_T_INR_RP_SEND:
      pg_send (e, SUP (M), APP (P), t->ev, d.type == VIPER_ML_T_WR_RP_SEND ? CTL_BYTES : data_bytes (&d), T);
      break;
    case VIPER_ML_T_IN_RP_RECV:
    case VIPER_ML_T_RD_RP_RECV:
    case VIPER_ML_T_WR_RP_RECV:
    case VIPER_ML_T_INR_RP_RECV:
      pg_recv_end (e, APP (M), t->ev, SUP (P), d.type == VIPER_ML_T_WR_RP_RECV ? CTL_BYTES : data_bytes (&d), T);
      if (d.type == VIPER_ML_T_INR_RP_RECV)
        g_hash_table_insert (x->replier, g_memdup2 (&M, sizeof M), g_memdup2 (&P, sizeof P));
      break;
    case VIPER_ML_T_INR_ACK:
      {
        const gint64 *r = g_hash_table_lookup (x->replier, &M);
        guint n = members (x, m, P);
        for (guint i = 0; i < n; i++)
          if (!r || x->members[i] != *r)
            pg_send (e, APP (M), SUP (x->members[i]), t->ev, CTL_BYTES, T);
        break;
      }
    default:
      break;
    }
}

/* ---- Pajé / Chrome --------------------------------------------------------------- */

static void
ml_timeline (ViperExporter *e, const ViperTram *t, const ViperModel *m)
{
  ViperMonalisaTram d;
  double T = t->adjusted;
  MlExport *x = ml_priv (e);
  gboolean known = viper_monalisa_tram_decode (t, &d);
  gint64 M = t->proc, P = d.partner;
  if (M >= 0 && first_sight (x, M))
    {
      const char *name = viper_monalisa_module_name (m, M);
      if (name)
        viper_timeline_name (e, M, name);
    }
  if (known && M >= 0)
    switch (d.type)
      {
      case VIPER_ML_T_IN_START:
      case VIPER_ML_T_RD_START:
      case VIPER_ML_T_WR_START:
      case VIPER_ML_T_INR_START:
        {
          char *name = g_strdup_printf ("%s request", t->ev == VIPER_ML_EV_INRQ ? "inglb" : t->ev == VIPER_ML_EV_RDRQ
                                        ? "rdglb" : t->ev == VIPER_ML_EV_WRRQ ? "wrglb" : "inrglb");
          guint n = d.type == VIPER_ML_T_INR_START ? members (x, m, P) : 1;
          if (d.type != VIPER_ML_T_INR_START)
            x->members[0] = P;
          for (guint i = 0; i < n; i++)
            viper_timeline_send (e, M, x->members[i], t->ev, T, name);
          g_free (name);
          break;
        }
      case VIPER_ML_T_IN_RQ_RECV:
      case VIPER_ML_T_RD_RQ_RECV:
      case VIPER_ML_T_WR_RQ_RECV:
      case VIPER_ML_T_INR_RQ_RECV:
        viper_timeline_recv (e, P, M, t->ev, T);
        break;
      case VIPER_ML_T_IN_RP_SEND:
      case VIPER_ML_T_RD_RP_SEND:
      case VIPER_ML_T_WR_RP_SEND:
      case VIPER_ML_T_INR_RP_SEND:
        {
          char *name = g_strdup_printf ("%s reply", t->ev == VIPER_ML_EV_INRP ? "inglb" : t->ev == VIPER_ML_EV_RDRP
                                        ? "rdglb" : t->ev == VIPER_ML_EV_WRRP ? "wrglb" : "inrglb");
          viper_timeline_send (e, M, P, t->ev, T, name);
          g_free (name);
          break;
        }
      case VIPER_ML_T_IN_RP_RECV:
      case VIPER_ML_T_RD_RP_RECV:
      case VIPER_ML_T_WR_RP_RECV:
      case VIPER_ML_T_INR_RP_RECV:
        viper_timeline_recv (e, P, M, t->ev, T);
        break;
      case VIPER_ML_T_EXPOSE_INSTANT:
      case VIPER_ML_T_EXPOSE_END:
      case VIPER_ML_T_HIDE_INSTANT:
      case VIPER_ML_T_HIDE_END:
        {
          const char *var = viper_monalisa_variable_name (m, M, d.var);
          char *what = var ? g_strdup_printf ("%s %s", t->ev == VIPER_ML_EV_EXPOSE ? "expose" : "hide", var)
                           : g_strdup_printf ("%s %" G_GINT64_FORMAT, t->ev == VIPER_ML_EV_EXPOSE ? "expose" : "hide",
                                              d.var);
          viper_timeline_instant (e, M, T, what);
          g_free (what);
          break;
        }
      default:
        break;
      }
  /* The states it decided, dated by the spec (an inrglb caller blocks at the
   * latest receipt, which this tram may not be): applied in time order as
   * the merge writes, with the program state (ml_program_at). */
  guint n;
  const ViperMonalisaChange *c = viper_monalisa_changes (m, &n);
  for (guint i = 0; i < n; i++)
    if (c[i].retract)
      viper_timeline_retract_at (e, c[i].module, c[i].time, c[i].lamport, c[i].idx, c[i].state);
    else
      {
        guint64 aux = (guint64) c[i].prim | (guint64) (c[i].started ? 8 : 0) | (guint64) (c[i].finished ? 16 : 0)
                      | (guint64) (guint32) (c[i].waits_on + 1) << 32;
        viper_timeline_state_at (e, c[i].module, c[i].time, c[i].lamport, c[i].idx, c[i].state, aux);
      }
  if (known && (d.type == VIPER_ML_T_PM_DLOCK || d.type == VIPER_ML_T_PM_ABORT || d.type == VIPER_ML_T_PM_EXIT))
    viper_timeline_note_at (e, -1, T, t->lamport, d.type == VIPER_ML_T_PM_DLOCK ? VIPER_ML_PROGRAM_DEADLOCK
                                                  : d.type == VIPER_ML_T_PM_ABORT ? VIPER_ML_PROGRAM_ABNORMAL
                                                  : VIPER_ML_PROGRAM_TERMINATED);
}

static Mirror *
mirror_get (MlExport *x, gint64 module)
{
  if (module < 0 || module > G_MAXINT32)
    return NULL;
  if ((gint64) x->mirror->len <= module)
    g_array_set_size (x->mirror, (guint) module + 1);
  return &g_array_index (x->mirror, Mirror, module);
}

/* A module's state as it stands at the time being written, or a verdict. */
static void
ml_applied (ViperExporter *e, gint64 module, guint state, guint64 aux, gboolean note)
{
  MlExport *x = ml_priv (e);
  if (note)
    {
      x->reported = (ViperMonalisaProgramState) aux;    /* sticky from its time on */
      return;
    }
  Mirror *mm = mirror_get (x, module);
  if (!mm)
    return;
  mm->exists = TRUE;
  mm->state = state;
  mm->prim = (ViperMonalisaPrim) (aux & 7);
  mm->started = (aux & 8) != 0;
  mm->finished = (aux & 16) != 0;
  mm->waits_on = (gint64) (guint32) (aux >> 32) - 1;
}

static gboolean
mirror_remote_blocked (const Mirror *mm)
{
  return mm->exists && !mm->finished && mm->state == VIPER_ML_BLOCKED && mm->prim >= VIPER_ML_PRIM_INGLB
         && mm->prim <= VIPER_ML_PRIM_INRGLB;
}

/* The program state at the time being written, from the modules' states at
 * that time (spec section 4, as the model's evaluate() derives it from its
 * current states): a function of the time, not of the run order. */
static const char *
ml_program_at (ViperExporter *e, double time)
{
  (void) time;
  MlExport *x = ml_priv (e);
  if (x->reported != VIPER_ML_PROGRAM_INACTIVE)
    return viper_monalisa_program_state_name (x->reported);
  guint n = x->mirror->len, n_exist = 0, n_started = 0, n_finished = 0, n_blocked = 0;
  for (guint i = 0; i < n; i++)
    {
      const Mirror *mm = &g_array_index (x->mirror, Mirror, i);
      if (!mm->exists)
        continue;
      n_exist++;
      n_started += mm->started;
      n_finished += mm->finished;
      n_blocked += mm->state == VIPER_ML_BLOCKED;
    }
  if (n_started == 0)
    return viper_monalisa_program_state_name (VIPER_ML_PROGRAM_INACTIVE);
  if (n_finished == n_exist)
    return viper_monalisa_program_state_name (VIPER_ML_PROGRAM_TERMINATED);
  if (n_blocked == 0)
    return viper_monalisa_program_state_name (VIPER_ML_PROGRAM_RUNNING);
  /* the largest deadlocked set: drop every member whose partner is not in it */
  g_array_set_size (x->in, n);
  gboolean *in = (gboolean *) (void *) x->in->data;
  for (guint i = 0; i < n; i++)
    in[i] = mirror_remote_blocked (&g_array_index (x->mirror, Mirror, i));
  for (gboolean again = TRUE; again;)
    {
      again = FALSE;
      for (guint i = 0; i < n; i++)
        {
          if (!in[i])
            continue;
          const Mirror *mm = &g_array_index (x->mirror, Mirror, i);
          gboolean keep = TRUE;
          guint k = mm->prim == VIPER_ML_PRIM_INRGLB ? members (x, x->model, mm->waits_on) : 1;
          if (mm->prim != VIPER_ML_PRIM_INRGLB)
            x->members[0] = mm->waits_on;
          for (guint j = 0; j < k && keep; j++)
            keep = x->members[j] >= 0 && x->members[j] < (gint64) n && in[x->members[j]];
          if (!keep)
            {
              in[i] = FALSE;
              again = TRUE;
            }
        }
    }
  gboolean cycle = FALSE, on_finished = FALSE, all_expose = TRUE;
  for (guint i = 0; i < n; i++)
    {
      const Mirror *mm = &g_array_index (x->mirror, Mirror, i);
      cycle = cycle || in[i];
      if (!mm->exists || mm->finished)
        continue;
      if (mirror_remote_blocked (mm))
        {
          /* blocked on a finished module (an inrglb: every instance finished) */
          guint k = mm->prim == VIPER_ML_PRIM_INRGLB ? members (x, x->model, mm->waits_on) : 1;
          if (mm->prim != VIPER_ML_PRIM_INRGLB)
            x->members[0] = mm->waits_on;
          gboolean all = k > 0;
          for (guint j = 0; j < k && all; j++)
            {
              const Mirror *p = x->members[j] >= 0 && x->members[j] < (gint64) n
                                  ? &g_array_index (x->mirror, Mirror, x->members[j]) : NULL;
              all = p && p->exists && p->finished;
            }
          on_finished = on_finished || (n_finished > 0 && all);
        }
      all_expose = all_expose && mm->state == VIPER_ML_BLOCKED && mm->prim == VIPER_ML_PRIM_EXPOSEGLB;
    }
  if (cycle)
    return viper_monalisa_program_state_name (VIPER_ML_PROGRAM_DEADLOCK);
  if (on_finished || all_expose)
    return viper_monalisa_program_state_name (VIPER_ML_PROGRAM_ABNORMAL);
  return viper_monalisa_program_state_name (VIPER_ML_PROGRAM_RUNNING);
}

static const char *const ml_states[] = { "inactive", "executing", "interacting", "blocked" };
static const char *const ml_colors[] = { "0.6 0.6 0.6", "0.2 0.7 0.2", "1.0 0.8 0.1", "0.8 0.1 0.1" };

static const ViperTimelineInfo ml_timeline_info = {
  .program = "Mona Lisa run",
  .module_kind = "module",
  .states = ml_states,
  .colors = ml_colors,
  .n_states = G_N_ELEMENTS (ml_states),
  .us_per_unit = 1e3,
  .states_at = TRUE,
};

/* The timeline reads the model's changes with their own times: the model
 * keeps them from the first tram on (none for ParaGraph or a replay alone). */
static void
ml_attach (ViperExporter *e, const ViperModel *m)
{
  if (m && !g_str_equal (viper_exporter_format (e), "paragraph"))
    viper_monalisa_record_changes (m);
}

static void
ml_begin (ViperExporter *e, const ViperModel *m)
{
  if (g_str_equal (viper_exporter_format (e), "paragraph"))
    {
      ml_paragraph_begin (e, m);
      return;
    }
  /* the timeline: the setup's modules exist from the start (the program
   * terminates when all have finished), are named, and hold the merge
   * until each has begun (their changes may be dated before the tram
   * that reveals them, never before the merge's watermark) */
  MlExport *x = ml_priv (e);
  x->model = m;
  guint n = viper_monalisa_model_n_modules (m);
  for (guint i = 0; i < n; i++)
    if (viper_monalisa_module_exists (m, i))
      {
        const char *name = viper_monalisa_module_name (m, i);
        if (name)
          viper_timeline_name (e, i, name);
        mirror_get (x, i)->exists = TRUE;
        viper_export_expect_source (e, i);
      }
}

const ViperExportTable viper_monalisa_exports = {
  .paragraph = ml_paragraph,
  .timeline = ml_timeline,
  .timeline_info = &ml_timeline_info,
  .begin = ml_begin,
  .attach = ml_attach,
  .applied = ml_applied,
  .program_at = ml_program_at,
  .priv_size = sizeof (MlExport),
  .priv_clear = ml_export_clear,
};
