/* programs.c - the Mona Lisa programs viper-monalisa-sim can run.
 *
 * Each module's application process is a step function: a small state
 * machine over the registers pc, i, j, k, n of its SimModule.  Every call of
 * a step performs exactly one action (start, work, a primitive, finish);
 * the kernel calls the step again when that action is over.  Writing the
 * programs this way, rather than with threads or coroutines, keeps the
 * simulation single-threaded and reproducible, and keeps each program close
 * to its Fortran original (appendix A, chapter 6 of the thesis): the cases
 * of a switch read like the lines of the loop.
 *
 * Times are milliseconds.  The farm and abnormal work times are arbitrary
 * but plausible; trackfit follows the thesis's chapter 6 (T9000 figures:
 * about 35 ms per track fit, 15% spread, 0.9 ms of Zebra copying per bank,
 * events of 2..6 tracks, 80% with 4).
 */
#include "sim.h"

#include <string.h>

enum { MASTER = 0 };

static const SimSlice bank_slice = { .k = 1, .off = { 1 }, .size = { 256 } };

static int
slave_group_id (Sim *S)
{
  return S->groups[0].id;
}

/* ---- farm (appendix A) -------------------------------------------------- */

/* MASTER: per round (one image), expose JOB once per slave, then collect
 * as many results with SLAVE.inrglb(RESULT), then final processing.  In the
 * abnormal program the master also exposes HALF once half of the jobs have
 * gone out (INIT waits for it). */
static void
master_step (Sim *S, SimModule *m)
{
  int nslaves = S->groups[0].size;
  gboolean abnormal = strcmp (S->opt.program, "abnormal") == 0;

  for (;;) {
    switch (m->pc) {
    case 0:
      sim_start (S, m);
      m->pc = 1;
      return;
    case 1:  /* read the next image */
      if (!sim_more (S)) {
        sim_finish (S, m);
        return;
      }
      m->n = nslaves;
      if (S->opt.count <= 0)
        m->n = MIN (nslaves, S->opt.tasks - S->tasks_issued);
      m->i = m->j = 0;
      sim_work (S, m, sim_uniform (S, 0.5, 2.0));
      m->pc = 2;
      return;
    case 2:  /* JOB = IMAGE(...) */
      if (abnormal && !S->half_done && S->tasks_issued >= S->opt.tasks / 2) {
        S->half_done = 1;
        sim_expose (S, m, 1, NULL);
        return;
      }
      if (m->i == m->n) {
        m->pc = 4;
        continue;
      }
      m->i++;
      S->tasks_issued++;
      sim_work (S, m, sim_uniform (S, 0.2, 0.4));
      m->pc = 3;
      return;
    case 3:
      sim_expose (S, m, 0, NULL);
      m->pc = 2;
      return;
    case 4:  /* SLAVE.INRGLB("RESULT", IMAGE(...)) */
      if (m->j == m->n) {
        sim_work (S, m, sim_uniform (S, 0.5, 1.5));
        m->pc = 1;
        return;
      }
      m->j++;
      sim_call (S, m, PRIM_INR, slave_group_id (S), 0, NULL);
      return;
    default:
      g_assert_not_reached ();
    }
  }
}

/* SLAVE: [INIT.rdglb(PARAMS) in the abnormal program], MASTER.inglb(JOB),
 * work, exposeglb(RESULT), book-keeping, again. */
static void
slave_step (Sim *S, SimModule *m)
{
  gboolean abnormal = strcmp (S->opt.program, "abnormal") == 0;

  switch (m->pc) {
  case 0:
    sim_start (S, m);
    m->pc = abnormal ? 1 : 2;
    return;
  case 1:
    sim_call (S, m, PRIM_RD, S->nmods - 1, 0, NULL);
    m->pc = 2;
    return;
  case 2:
    sim_call (S, m, PRIM_IN, MASTER, 0, NULL);
    m->pc = 3;
    return;
  case 3:
    sim_work (S, m, sim_uniform (S, 8.0, 16.0));
    m->pc = 4;
    return;
  case 4:
    sim_expose (S, m, 0, NULL);
    m->pc = 5;
    return;
  case 5:  /* book-keeping, now and then long: a late request leaves JOB
             * exposed and the master blocks in its next exposeglb */
    sim_work (S, m, sim_uniform (S, 0.5, 2.0) + (sim_uniform (S, 0.0, 1.0) < 0.25 ? sim_uniform (S, 10.0, 25.0) : 0.0));
    m->pc = abnormal ? 1 : 2;
    return;
  default:
    g_assert_not_reached ();
  }
}

/* INIT (abnormal): exposes PARAMS for the slaves, waits with
 * MASTER.rdglb(HALF) until half of the jobs are out, then hides PARAMS
 * ("clean-up") and finishes.  The slaves' next INIT.rdglb(PARAMS) can never
 * be served: they are blocked on a finished module. */
static void
init_step (Sim *S, SimModule *m)
{
  switch (m->pc++) {
  case 0:
    sim_start (S, m);
    return;
  case 1:
    sim_expose (S, m, 0, NULL);
    return;
  case 2:
    sim_call (S, m, PRIM_RD, MASTER, 1, NULL);
    return;
  case 3:
    sim_work (S, m, 1.0);
    return;
  case 4:
    sim_hide (S, m, 0);
    return;
  case 5:
    sim_finish (S, m);
    return;
  default:
    g_assert_not_reached ();
  }
}

/* ---- deadlock ----------------------------------------------------------- */

/* PEER[1] and PEER[2] exchange X in rounds (PEER[1] exposes first, PEER[2]
 * takes it and exposes its own), reading LOG.STATUS each round.  In the last
 * round both take the other's X before exposing their own: a deadlock. */
static void
peer_step (Sim *S, SimModule *m)
{
  int other = 1 - m->id;
  gboolean first = m->id == 0;

  switch (m->pc) {
  case 0:
    sim_start (S, m);
    m->pc = 1;
    return;
  case 1:
    /* Round i is decided by whichever peer reaches it first, so that both
     * run the same rounds: a normal one while tasks remain, else the faulty
     * one (S->half_done holds its number). */
    m->i++;
    if (S->tasks_issued < m->i && !S->half_done) {
      if (sim_more (S))
        S->tasks_issued++;
      else
        S->half_done = m->i;
    }
    m->k = S->half_done == m->i;
    sim_work (S, m, sim_uniform (S, 1.0, 3.0));
    m->pc = m->k ? 10 : 2;
    return;
  case 2:
    sim_call (S, m, PRIM_RD, 2, 0, NULL);
    m->pc = 3;
    return;
  case 3:
    if (first)
      sim_expose (S, m, 0, NULL);
    else
      sim_call (S, m, PRIM_IN, other, 0, NULL);
    m->pc = 4;
    return;
  case 4:
    if (first)
      sim_call (S, m, PRIM_IN, other, 0, NULL);
    else
      sim_expose (S, m, 0, NULL);
    m->pc = 1;
    return;
  case 10:
    sim_call (S, m, PRIM_IN, other, 0, NULL);
    m->pc = 11;
    return;
  case 11:
    sim_expose (S, m, 0, NULL);
    m->pc = 12;
    return;
  case 12:
    sim_finish (S, m);
    return;
  default:
    g_assert_not_reached ();
  }
}

/* LOG: exposes STATUS, hides it for a while (START/END form), exposes it
 * again and finishes; its supervisor keeps serving STATUS. */
static void
log_step (Sim *S, SimModule *m)
{
  switch (m->pc++) {
  case 0:
    sim_start (S, m);
    return;
  case 1:
    sim_expose (S, m, 0, NULL);
    return;
  case 2:
    sim_work (S, m, 4.0);
    return;
  case 3:
    sim_hide_long (S, m, 0, 3.0);
    return;
  case 4:
    sim_work (S, m, 2.0);
    return;
  case 5:
    sim_expose (S, m, 0, NULL);
    return;
  case 6:
    sim_work (S, m, 5.0);
    return;
  case 7:
    sim_finish (S, m);
    return;
  default:
    g_assert_not_reached ();
  }
}

/* ---- trackfit (thesis chapter 6) ---------------------------------------- */

static int
tracks_in_event (Sim *S)
{
  double u = sim_uniform (S, 0.0, 1.0);
  return u < 0.05 ? 2 : u < 0.10 ? 3 : u < 0.90 ? 4 : u < 0.95 ? 5 : 6;
}

/* MASTER: writes the run number to every slave (SLAVE[i].wrglb(RUNNO)),
 * then per event: reconstruction without the fit, one exposure of TRACKS
 * per track bank (Zebra copy first), one SLAVE.inrglb(FIT) per track,
 * post-processing. */
static void
tf_master_step (Sim *S, SimModule *m)
{
  int nslaves = S->groups[0].size;

  for (;;) {
    switch (m->pc) {
    case 0:
      sim_start (S, m);
      m->pc = 1;
      return;
    case 1:
      sim_work (S, m, sim_uniform (S, 15.0, 25.0));  /* initialisation */
      m->pc = 2;
      return;
    case 2:
      if (m->k == nslaves) {
        m->pc = 3;
        continue;
      }
      sim_call (S, m, PRIM_WR, S->groups[0].first + m->k++, 1, NULL);
      return;
    case 3:  /* next event */
      if (!sim_more (S)) {
        sim_finish (S, m);
        return;
      }
      S->tasks_issued++;
      m->n = tracks_in_event (S);
      m->i = m->j = 0;
      sim_work (S, m, sim_uniform (S, 50.0, 70.0));
      m->pc = 4;
      return;
    case 4:
      if (m->i == m->n) {
        m->pc = 6;
        continue;
      }
      m->i++;
      sim_work (S, m, sim_uniform (S, 0.7, 1.1));  /* Zebra bank to array */
      m->pc = 5;
      return;
    case 5:
      {
        SimSlice s = { .k = 1, .off = { 1 }, .size = { 200 + g_rand_int_range (S->rnd, 0, 57) } };
        sim_expose (S, m, 0, &s);
      }
      m->pc = 4;
      return;
    case 6:
      if (m->j == m->n) {
        sim_work (S, m, sim_uniform (S, 5.0, 10.0));
        m->pc = 3;
        return;
      }
      m->j++;
      sim_call (S, m, PRIM_INR, slave_group_id (S), 0, &bank_slice);
      return;
    default:
      g_assert_not_reached ();
    }
  }
}

/* SLAVE: exposes RUNNO for the master's write, initialises, then loops:
 * calibrate once RUNNO has been written, MASTER.inglb(TRACKS), fit, Zebra
 * copy, exposeglb(FIT). */
static void
tf_slave_step (Sim *S, SimModule *m)
{
  for (;;) {
    switch (m->pc) {
    case 0:
      sim_start (S, m);
      m->pc = 1;
      return;
    case 1:
      sim_expose (S, m, 1, NULL);
      m->pc = 2;
      return;
    case 2:
      sim_work (S, m, sim_uniform (S, 8.0, 12.0));
      m->pc = 3;
      return;
    case 3:
      if (!m->k && !m->vars[1].exposed) {  /* the run number arrived */
        m->k = 1;
        sim_work (S, m, sim_uniform (S, 4.0, 6.0));
        m->pc = 4;
        return;
      }
      m->pc = 4;
      continue;
    case 4:
      sim_call (S, m, PRIM_IN, MASTER, 0, &bank_slice);
      m->pc = 5;
      return;
    case 5: {
      double fit = sim_normal (S, 34.6, 3.0);
      sim_work (S, m, MAX (fit, 20.0));
      m->pc = 6;
      return;
    }
    case 6:
      sim_work (S, m, sim_uniform (S, 0.7, 1.1));
      m->pc = 7;
      return;
    case 7:
      sim_expose (S, m, 0, &bank_slice);
      m->pc = 3;
      return;
    default:
      g_assert_not_reached ();
    }
  }
}

/* ---- building ----------------------------------------------------------- */

static void
add_slaves (Sim *S, const char *prog, int cls, int n, SimStep step)
{
  int first = S->nmods;
  for (int i = 1; i <= n; i++) {
    char *name = g_strdup_printf ("SLAVE[%d]", i);
    sim_add_module (S, prog, name, cls, step);
    g_free (name);
  }
  sim_add_group (S, "SLAVE", first, n);
}

gboolean
sim_build_program (Sim *S, GError **error)
{
  const char *p = S->opt.program;

  if (strcmp (p, "farm") == 0) {
    SimAttr ma[] = { { "JOB", "INTEGER(400)" } }, sa[] = { { "RESULT", "INTEGER(400)" } };
    int mc = sim_add_class (S, "MASTER", 1, ma), sc = sim_add_class (S, "SLAVE", 1, sa);
    sim_add_module (S, p, "MASTER", mc, master_step);
    add_slaves (S, p, sc, S->opt.slaves, slave_step);
  } else if (strcmp (p, "abnormal") == 0) {
    SimAttr ma[] = { { "JOB", "INTEGER(400)" }, { "HALF", "INTEGER" } };
    SimAttr sa[] = { { "RESULT", "INTEGER(400)" } }, ia[] = { { "PARAMS", "REAL(16)" } };
    int mc = sim_add_class (S, "MASTER", 2, ma), sc = sim_add_class (S, "SLAVE", 1, sa);
    int ic = sim_add_class (S, "INIT", 1, ia);
    sim_add_module (S, p, "MASTER", mc, master_step);
    add_slaves (S, p, sc, S->opt.slaves, slave_step);
    sim_add_module (S, p, "INIT", ic, init_step);
  } else if (strcmp (p, "deadlock") == 0) {
    SimAttr pa[] = { { "X", "INTEGER(100)" } }, la[] = { { "STATUS", "INTEGER" } };
    int pc = sim_add_class (S, "PEER", 1, pa), lc = sim_add_class (S, "LOG", 1, la);
    sim_add_module (S, p, "PEER[1]", pc, peer_step);
    sim_add_module (S, p, "PEER[2]", pc, peer_step);
    sim_add_module (S, p, "LOG", lc, log_step);
    sim_add_group (S, "PEER", 0, 2);
  } else if (strcmp (p, "trackfit") == 0) {
    SimAttr ma[] = { { "TRACKS", "INTEGER(256)" } };
    SimAttr sa[] = { { "FIT", "INTEGER(256)" }, { "RUNNO", "INTEGER" } };
    int mc = sim_add_class (S, "MASTER", 1, ma), sc = sim_add_class (S, "SLAVE", 2, sa);
    sim_add_module (S, p, "MASTER", mc, tf_master_step);
    add_slaves (S, p, sc, S->opt.slaves, tf_slave_step);
  } else {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                 "unknown program '%s' (farm, deadlock, abnormal, trackfit)", p);
    return FALSE;
  }
  sim_setup_done (S);
  return TRUE;
}
