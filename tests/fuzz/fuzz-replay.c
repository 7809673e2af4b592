/* fuzz-replay.c - a whole replay: any bytes as a trace file, in every
 * paradigm, through the same pipeline as viper-replay (file source, run
 * construction, model, scheduler), with --run-out printing, every export
 * the paradigm has, the --state-out document and the views drawn at the end.
 *
 * The first byte chooses the paradigm: bits 0-1 (mod 4) with bit 3 clear
 * 0 picl, 1 Mona Lisa without a setup, 2 Mona Lisa with the Farm's setup,
 * 3 Macrame; with bit 3 set 0 lights without a setup, 1 lights on a 3x3 mesh
 * with a route and a range, 2 switchnet on the torus4 model, 3 picl again.
 * Bit 2 draws the views.  Bits 4-5 the global time (--clock): 0 decay,
 * 1 drift, 2 clc, 3 clc with no trams kept in memory (the file read again).
 * Checked: no crash, hang or leak; read = transferred + pending + rejected;
 * every adjusted time finite; the state document is produced. */
#include <math.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cairo.h>
#include "core/clocksync.h"
#include "core/scheduler.h"
#include "core/stateout.h"
#include "paradigms/paradigms.h"
#include "paradigms/export.h"
#include "paradigms/views.h"
#include "fuzz.h"

static char *trace_path;    /* /proc/self/fd/N of a memory file: no disk, no fsync */
static int trace_fd = -1;
static ViperSetup *farm_setup, *mesh_setup, *torus_setup;
static GString *line;

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  (void) argc;
  (void) argv;
  viper_paradigms_register_all ();
  trace_fd = memfd_create ("viper-fuzz-trace", MFD_CLOEXEC);
  if (trace_fd < 0)
    g_error ("memfd_create failed");
  trace_path = g_strdup_printf ("/proc/self/fd/%d", trace_fd);
  const ViperParadigm *ml = viper_paradigm_lookup ("monalisa");
  char *setup = g_build_filename (VIPER_SOURCE_ROOT, "setup", "farm.setup", NULL);
  farm_setup = ml->setup_load (setup, NULL);
  g_free (setup);
  /* a lights cluster: links, a listed route, a range of interest */
  static const char mesh[] = "paradigm lights\nsize 300 300\ntopology mesh 3 3\nrange 50k 2M below lightgrey above red\n"
    "module 0 bar 25 25 50 50 n0\nmodule 1 bar 125 25 50 50 n1\nmodule 2 bar 225 25 50 50 n2\n"
    "module 3 bar 25 125 50 50 n3\nmodule 4 bar 125 125 50 50 n4\nmodule 5 bar 225 125 50 50 n5\n"
    "module 6 bar 25 225 50 50 n6\nmodule 7 bar 125 225 50 50 n7\nmodule 8 bar 225 225 50 50 n8\n"
    "route 0 3 4 5 8\n";
  int fd = memfd_create ("viper-fuzz-mesh", MFD_CLOEXEC);
  if (fd < 0 || write (fd, mesh, sizeof mesh - 1) != (ssize_t) (sizeof mesh - 1))
    g_error ("cannot write the lights setup");
  setup = g_strdup_printf ("/proc/self/fd/%d", fd);
  GError *error = NULL;
  mesh_setup = viper_paradigm_lookup ("lights")->setup_load (setup, &error);
  if (!mesh_setup)
    g_error ("lights setup: %s", error->message);
  g_free (setup);
  close (fd);
  setup = g_build_filename (VIPER_SOURCE_ROOT, "setup", "switchnet", "torus4", "torus4.swm", NULL);
  torus_setup = viper_paradigm_lookup ("switchnet")->setup_load (setup, &error);
  if (!torus_setup)
    g_error ("switchnet setup: %s", error->message);
  g_free (setup);
  line = g_string_new (NULL);
  return 0;
}

static void
check_hook (const ViperTram *t, gboolean changed, gpointer data)
{
  (void) changed;
  (void) data;
  if (!isfinite (t->adjusted))
    g_error ("adjusted time %g", t->adjusted);
  g_string_truncate (line, 0);
  viper_tram_print (t, TRUE, line);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size < 1)
    return 0;
  static const char *const names[] = { "picl", "monalisa", "monalisa", "macrame",
                                       "lights", "lights", "switchnet", "picl" };
  guint which = (data[0] & 3) | ((data[0] & 8) >> 1);
  const ViperParadigm *p = viper_paradigm_lookup (names[which]);
  ViperSetup *setup = which == 2 ? farm_setup : which == 5 ? mesh_setup : which == 6 ? torus_setup : NULL;
  guint clock = (data[0] >> 4) & 3;
  if (ftruncate (trace_fd, 0) != 0
      || (size > 1 && pwrite (trace_fd, data + 1, size - 1, 0) != (ssize_t) (size - 1)))
    g_error ("cannot write the trace");

  ViperTramPool *pool = viper_tram_pool_new ();
  ViperChannels *channels = viper_channels_new ();
  ViperDiag diag;
  viper_diag_init (&diag, NULL, NULL);
  /* a file that starts with a compressor's magic number is refused at open,
   * and nothing else is (tests/cli/cases/files.json checks the message) */
  GError *open_error = NULL;
  ViperTramSource *probe = viper_file_source_new (trace_path, pool, &diag, channels, &open_error);
  if (!probe)
    {
      if (!g_error_matches (open_error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA))
        g_error ("the trace cannot be opened: %s", open_error->message);
      g_error_free (open_error);
      viper_channels_free (channels);
      viper_diag_clear (&diag);
      viper_tram_pool_free (pool);
      return 0;
    }
  viper_tram_source_free (probe);
  viper_channels_free (channels);
  channels = viper_channels_new ();
  ViperModel *model = p->model_new (p, setup);
  model->diag = &diag;
  viper_model_set_history (model, 0.0);
  viper_damage_set_enabled (model->damage, FALSE);
  ViperRun *run = viper_run_new (p, model, pool, channels, &diag, 0.5);
  ViperScheduler *sched = viper_scheduler_new (run, model, channels, &diag);
  ViperClockSync *cs = NULL;
  ViperTramSource *src;
  if (clock)
    {
      const char *const paths[] = { trace_path, NULL };
      cs = viper_clock_sync_analyse_keep (clock == 1 ? VIPER_CLOCK_DRIFT : VIPER_CLOCK_CLC, p, setup, paths,
                                          clock == 3 ? 0 : VIPER_CLOCK_KEEP_DEFAULT, NULL);
      if (!cs)
        g_error ("the clock analysis failed");
      viper_clock_sync_install (cs, run);
      src = viper_clock_sync_source_new (cs, 0, pool, &diag, channels, NULL);
      if (!src)
        g_error ("no clock-sync source");
    }
  else
    {
      src = viper_file_source_new (trace_path, pool, &diag, channels, NULL);
      viper_file_source_set_read_ahead (src, FALSE);
    }
  viper_scheduler_add_source (sched, src);
  viper_scheduler_add_hook (sched, check_hook, NULL);
  GString *outs[3];
  ViperExporter *ex[3] = { NULL };
  const char *const *formats = viper_export_format_names ();
  for (guint i = 0; i < 3; i++)
    {
      outs[i] = g_string_new (NULL);
      if (viper_export_supported (p, formats[i], NULL))
        {
          ex[i] = viper_exporter_open_string (p, model, formats[i], outs[i], NULL);
          viper_exporter_set_buffer_limit (ex[i], 64);   /* exercise the clamps too */
          viper_scheduler_add_hook (sched, viper_exporter_hook, ex[i]);
        }
    }
  viper_scheduler_go (sched);
  viper_scheduler_run (sched);

  ViperCounts c;
  viper_run_counts (run, &c);
  if (c.read != c.transferred + c.pending + c.rejected)
    g_error ("read %" G_GUINT64_FORMAT " != transferred + pending + rejected", c.read);
  for (guint i = 0; i < 3; i++)
    {
      if (ex[i] && !viper_exporter_close (ex[i], NULL))
        g_error ("export to a string failed");
      g_string_free (outs[i], TRUE);
    }
  char *json = viper_state_to_json (run, model, TRUE);
  if (!json || json[0] != '{')
    g_error ("no state document");
  g_free (json);

  if (data[0] & 4)
    {
      /* drawing (text through fontconfig) is slow: one input in two */
      cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 96, 64);
      cairo_t *cr = cairo_create (surface);
      ViperTimeWindow w;
      viper_time_window_init (&w);
      for (int k = 0; k <= VIPER_VIEW_PROGRAM; k++)
        viper_view_draw ((ViperViewKind) k, cr, model, run, NULL, &w, 96, 64);
      cairo_destroy (cr);
      cairo_surface_destroy (surface);
    }

  viper_scheduler_free (sched);
  viper_run_free (run);
  viper_clock_sync_free (cs);
  viper_model_free (model);
  viper_channels_free (channels);
  viper_diag_clear (&diag);
  viper_tram_pool_free (pool);
  return 0;
}
